package io.raftline.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** max.connections.per.principal as a table: who is counted, when a place is taken and when it comes back. */
class PrincipalConnectionsTest {

    private final PrincipalConnections limits = new PrincipalConnections(2, Set.of("User:node1", "User:admin")::contains);

    @Test
    void aPrincipalHoldsAtMostItsLimitAndAClosedConnectionGivesItsPlaceBack() {
        PrincipalConnections.Slot a = limits.slot();
        PrincipalConnections.Slot b = limits.slot();
        PrincipalConnections.Slot c = limits.slot();
        assertThat(a.actAs("User:app")).isTrue();
        assertThat(a.actAs("User:app")).as("its later requests take no second place").isTrue();
        assertThat(b.actAs("User:app")).isTrue();
        assertThat(c.actAs("User:app")).as("a third connection").isFalse();
        assertThat(c.actAs("User:app")).as("still refused").isFalse();
        assertThat(limits.open("User:app")).isEqualTo(2);
        assertThat(limits.refused()).isEqualTo(2);
        assertThat(limits.refusal("User:app"))
            .isEqualTo("too many connections as User:app on this broker: it holds 2 (max.connections.per.principal=2)");
        a.release();
        a.release();
        assertThat(limits.open("User:app")).as("released once however often it closes").isEqualTo(1);
        assertThat(a.actAs("User:app")).as("a closed connection makes no requests").isFalse();
        assertThat(c.actAs("User:app")).isTrue();
        assertThat(c.actAs("User:other")).as("another principal has its own count").isTrue();
        assertThat(limits.open("User:app")).as("c moved to User:other and gave its place back").isEqualTo(1);
    }

    @Test
    void nodesSuperUsersAndAnonymousClientsAreNotCounted() {
        for (String who : new String[] {"User:node1", "User:admin", TransportSecurity.ANONYMOUS}) {
            for (int i = 0; i < 5; i++) {
                assertThat(limits.slot().actAs(who)).as(who).isTrue();
            }
            assertThat(limits.open(who)).isZero();
        }
    }

    @Test
    void aLimitOfZeroShutsEveryCountedPrincipalOutAndTheDefaultCountsNothing() {
        PrincipalConnections none = new PrincipalConnections(0, p -> false);
        assertThat(none.slot().actAs("User:app")).isFalse();
        assertThat(none.slot().actAs(TransportSecurity.ANONYMOUS)).isTrue();
        PrincipalConnections.Slot s = PrincipalConnections.UNLIMITED.slot();
        assertThat(s.actAs("User:app")).isTrue();
        assertThat(PrincipalConnections.UNLIMITED.open("User:app")).isZero();
    }
}
