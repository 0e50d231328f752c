package io.raftline.grpc;

import io.raftline.common.sasl.ScramCredential;
import io.raftline.common.sasl.ScramMechanism;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;

/** What a SASL_SSL listener checks sessions against: the users' credentials, a clock, and the session lifetime. */
public interface ServerSasl {

    Optional<ScramCredential> credential(String user, ScramMechanism mechanism);

    /** Checked on every call of a session; override when it is cheaper than {@link #credential}. */
    default boolean exists(String user, ScramMechanism mechanism) {
        return credential(user, mechanism).isPresent();
    }

    /** Wall-clock or monotonic milliseconds; only differences matter. */
    long nowMs();

    /** connections.max.reauth.ms: how long a session holds (0: until the connection closes or the user goes). */
    long maxReauthMs();

    /** Sessions checked against {@code credentials} on {@code clock}. */
    static ServerSasl of(BiFunction<String, ScramMechanism, Optional<ScramCredential>> credentials, LongSupplier clock,
                         long maxReauthMs) {
        return new ServerSasl() {
            @Override
            public Optional<ScramCredential> credential(String user, ScramMechanism mechanism) {
                return credentials.apply(user, mechanism);
            }

            @Override
            public long nowMs() {
                return clock.getAsLong();
            }

            @Override
            public long maxReauthMs() {
                return maxReauthMs;
            }
        };
    }
}
