package io.raftline.metadata.quorum;

import io.raftline.common.tls.ReloadingTls;
import io.raftline.grpc.TransportSecurity;
import java.util.function.Predicate;

/**
 * How a quorum node's two listeners are secured: the controller service's gRPC ({@code controller}; under mTLS only
 * {@code nodePrincipals} may call it, since only brokers and voters do), and Ratis's own gRPC between the voters
 * ({@code quorumTls}, null for plaintext; {@code quorumMutual} asks the peers for their certificates).
 */
public record QuorumSecurity(TransportSecurity controller, ReloadingTls quorumTls, boolean quorumMutual,
                             Predicate<String> nodePrincipals) {

    public static final QuorumSecurity PLAINTEXT = new QuorumSecurity(TransportSecurity.plaintext(), null, false, p -> false);
}
