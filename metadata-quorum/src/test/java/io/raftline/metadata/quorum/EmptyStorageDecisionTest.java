package io.raftline.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.metadata.quorum.EmptyStorageDecision.Action;
import io.raftline.metadata.quorum.EmptyStorageDecision.PeerView;
import io.raftline.metadata.quorum.EmptyStorageDecision.QuorumAnswer;
import io.raftline.metadata.quorum.EmptyStorageDecision.Role;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Node 3 starts with empty Raft storage; voters 1 and 2 answer (or not), then the quorum's leader (or not yet). */
class EmptyStorageDecisionTest {

    private static PeerView up(int id, boolean hasLog) {
        return new PeerView(id, true, hasLog);
    }

    private static PeerView down(int id) {
        return PeerView.unreachable(id);
    }

    private static Optional<QuorumAnswer> answer(Role role, String registered) {
        return Optional.of(new QuorumAnswer(role, Optional.ofNullable(registered)));
    }

    static Stream<Arguments> cases() {
        return Stream.of(
            // name, peers, the quorum's answer, expected
            Arguments.of("first start: every voter starting at once", List.of(down(1), down(2)), Optional.empty(),
                Action.BOOTSTRAP),
            Arguments.of("first start: the others up but empty too", List.of(up(1, false), down(2)), Optional.empty(),
                Action.BOOTSTRAP),
            Arguments.of("one peer with a log: the quorum has run, so ask it", List.of(up(1, false), up(2, true)),
                Optional.empty(), Action.ASK_QUORUM),
            Arguments.of("a voter that never joined", List.of(up(1, true), up(2, true)), answer(Role.VOTER, null),
                Action.JOIN_AS_VOTER),
            Arguments.of("a wiped voter: the quorum holds the directory it joined with", List.of(up(1, true), down(2)),
                answer(Role.VOTER, "dir-A"), Action.REFUSE),
            Arguments.of("a voter whose Raft storage alone was lost (same directory id)", List.of(up(1, true), up(2, true)),
                answer(Role.VOTER, "dir-B"), Action.REFUSE),
            Arguments.of("demoted by remove-voter: an observer", List.of(up(1, true), up(2, true)),
                answer(Role.LISTENER, "dir-A"), Action.JOIN_AS_LISTENER),
            Arguments.of("a new node not in the configuration (add-voter)", List.of(up(1, true), down(2)),
                answer(Role.ABSENT, null), Action.JOIN_AS_LISTENER));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void decides(String name, List<PeerView> peers, Optional<QuorumAnswer> answer, Action expected) {
        EmptyStorageDecision.Decision d = EmptyStorageDecision.decide(3, peers, answer);
        assertThat(d.action()).as(d.reason()).isEqualTo(expected);
        if (expected == Action.REFUSE) {
            assertThat(d.reason()).contains("quorum remove-voter --id 3").contains("add-voter");
        }
    }
}
