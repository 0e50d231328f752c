package io.raftline.grpc;

import io.raftline.common.sasl.ScramCredential;
import io.raftline.common.sasl.ScramMechanism;
import java.util.Optional;

/** What a SASL_SSL listener checks sessions against: the users' credentials, a clock, and the session lifetime. */
public interface ServerSasl {

    Optional<ScramCredential> credential(String user, ScramMechanism mechanism);

    /** Cheaper than {@link #credential}: checked on every call of a session. */
    boolean exists(String user, ScramMechanism mechanism);

    /** Wall-clock or monotonic milliseconds; only differences matter. */
    long nowMs();

    /** connections.max.reauth.ms: how long a session holds (0: until the connection closes or the user goes). */
    long maxReauthMs();
}
