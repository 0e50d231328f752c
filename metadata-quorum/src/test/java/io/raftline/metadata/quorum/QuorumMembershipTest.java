package io.raftline.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.apache.ratis.protocol.RaftPeer;
import org.junit.jupiter.api.Test;

/** Table tests of the next Raft configuration for {@code quorum remove-voter} and {@code quorum add-voter}. */
class QuorumMembershipTest {

    private static RaftPeer peer(int id) {
        return QuorumServer.peer(id, InetSocketAddress.createUnresolved("127.0.0.1", 9000 + id));
    }

    private static List<RaftPeer> peers(int... ids) {
        return Arrays.stream(ids).mapToObj(QuorumMembershipTest::peer).toList();
    }

    private static List<Integer> ids(Collection<RaftPeer> peers) {
        return peers.stream().map(p -> QuorumServer.nodeIdOf(p.getId())).sorted().toList();
    }

    private record RemoveCase(String name, int[] voters, int[] listeners, int id, List<Integer> nextVoters,
                              List<Integer> nextListeners, String error) {
    }

    @Test
    void remove() {
        List<RemoveCase> cases = List.of(
            new RemoveCase("a voter becomes an observer", new int[] {1, 2, 3}, new int[] {}, 3, List.of(1, 2),
                List.of(3), null),
            new RemoveCase("an observer leaves the configuration", new int[] {1, 2}, new int[] {3}, 3, List.of(1, 2),
                List.of(), null),
            new RemoveCase("other observers stay", new int[] {1, 2, 3}, new int[] {4}, 2, List.of(1, 3), List.of(2, 4),
                null),
            new RemoveCase("the last voter stays", new int[] {1}, new int[] {2}, 1, null, null,
                "cannot remove the last voter"),
            new RemoveCase("an unknown node", new int[] {1, 2, 3}, new int[] {}, 7, null, null,
                "node 7 is not in the quorum"));
        for (RemoveCase c : cases) {
            if (c.error() != null) {
                assertThatThrownBy(() -> QuorumMembership.remove(peers(c.voters()), peers(c.listeners()), c.id()))
                    .as(c.name()).isInstanceOf(IllegalArgumentException.class).hasMessage(c.error());
                continue;
            }
            QuorumMembership.Change next = QuorumMembership.remove(peers(c.voters()), peers(c.listeners()), c.id());
            assertThat(ids(next.voters())).as(c.name()).isEqualTo(c.nextVoters());
            assertThat(ids(next.listeners())).as(c.name()).isEqualTo(c.nextListeners());
        }
    }

    private record AddCase(String name, int[] voters, int[] listeners, int id, boolean asListener,
                           List<Integer> nextVoters, List<Integer> nextListeners, String error) {
    }

    @Test
    void add() {
        List<AddCase> cases = List.of(
            new AddCase("a new voter", new int[] {1, 2, 3}, new int[] {}, 4, false, List.of(1, 2, 3, 4), List.of(),
                null),
            new AddCase("an observer is promoted", new int[] {1, 2}, new int[] {3}, 3, false, List.of(1, 2, 3),
                List.of(), null),
            new AddCase("a new observer", new int[] {1, 2, 3}, new int[] {}, 4, true, List.of(1, 2, 3), List.of(4),
                null),
            new AddCase("a voter again is no change", new int[] {1, 2, 3}, new int[] {}, 2, false, List.of(1, 2, 3),
                List.of(), null),
            new AddCase("the last voter cannot become an observer", new int[] {1}, new int[] {}, 1, true, null, null,
                "cannot turn the last voter into an observer"));
        for (AddCase c : cases) {
            if (c.error() != null) {
                assertThatThrownBy(() -> QuorumMembership.add(peers(c.voters()), peers(c.listeners()), peer(c.id()),
                    c.asListener())).as(c.name()).isInstanceOf(IllegalArgumentException.class).hasMessage(c.error());
                continue;
            }
            QuorumMembership.Change next = QuorumMembership.add(peers(c.voters()), peers(c.listeners()), peer(c.id()),
                c.asListener());
            assertThat(ids(next.voters())).as(c.name()).isEqualTo(c.nextVoters());
            assertThat(ids(next.listeners())).as(c.name()).isEqualTo(c.nextListeners());
        }
    }
}
