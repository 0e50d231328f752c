package io.raftline.grpc;

import com.google.protobuf.ByteString;
import io.raftline.common.sasl.ScramException;
import io.raftline.common.sasl.ScramMechanism;
import io.raftline.common.sasl.ScramServer;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.SaslAuthenticateRequest;
import io.raftline.protocol.broker.SaslAuthenticateResponse;
import java.util.Optional;

/**
 * The SASL state of one connection to a SASL_SSL listener: the SCRAM exchange under way, and once one succeeded, the
 * user it authenticated and until when (connections.max.reauth.ms, KIP-368). A session ends early when the user's
 * credential is removed. Re-authentication must name the same user; a failed one ends the session. Thread-safe:
 * calls of one connection run on several threads.
 */
public final class SaslConnection {

    private ScramServer exchange;
    private ScramMechanism exchangeMechanism;
    private String user;
    private ScramMechanism mechanism;
    private long expiresAtMs;

    /** One step of an exchange: the answer to the client's message, and on the last step, the new session. */
    public synchronized SaslAuthenticateResponse step(SaslAuthenticateRequest request, ServerSasl sasl) {
        Optional<ScramMechanism> asked = ScramMechanism.forName(request.getMechanism());
        if (asked.isEmpty()) {
            exchange = null;
            return failure(ErrorCode.UNSUPPORTED_SASL_MECHANISM, "SASL mechanism '" + request.getMechanism()
                + "' is not enabled here: SCRAM-SHA-512 or SCRAM-SHA-256");
        }
        if (exchange == null) {
            ScramMechanism m = asked.get();
            exchange = new ScramServer(m, name -> sasl.credential(name, m));
            exchangeMechanism = m;
        } else if (exchangeMechanism != asked.get()) {
            exchange = null;
            user = null;
            return failure(ErrorCode.SASL_AUTHENTICATION_FAILED, "authentication failed: the mechanism changed within "
                + "one exchange");
        }
        byte[] answer;
        try {
            answer = exchange.evaluate(request.getAuthBytes().toByteArray());
        } catch (ScramException e) {
            exchange = null;
            user = null;
            return failure(ErrorCode.SASL_AUTHENTICATION_FAILED, e.getMessage());
        }
        SaslAuthenticateResponse.Builder out = SaslAuthenticateResponse.newBuilder().setAuthBytes(ByteString.copyFrom(answer));
        if (exchange.complete()) {
            String name = exchange.username();
            exchange = null;
            if (user != null && !user.equals(name)) {
                String why = "authentication failed: re-authentication as '" + name + "' on a connection of '" + user + "'";
                user = null;
                return failure(ErrorCode.SASL_AUTHENTICATION_FAILED, why);
            }
            user = name;
            mechanism = exchangeMechanism;
            long lifetime = sasl.maxReauthMs();
            expiresAtMs = lifetime > 0 ? sasl.nowMs() + lifetime : Long.MAX_VALUE;
            out.setSessionLifetimeMs(lifetime);
        }
        return out.setError(Error.newBuilder().setCode(ErrorCode.NONE)).build();
    }

    /** {@code User:<name>} while the session holds (not expired, the credential still there); else null. */
    public synchronized String principal(ServerSasl sasl) {
        if (user == null || sasl.nowMs() >= expiresAtMs || !sasl.exists(user, mechanism)) {
            return null;
        }
        return "User:" + user;
    }

    /** Whether a session was ever made here (to tell "expired" from "never authenticated"). */
    public synchronized boolean hadSession() {
        return mechanism != null;
    }

    private static SaslAuthenticateResponse failure(ErrorCode code, String message) {
        return SaslAuthenticateResponse.newBuilder().setError(Error.newBuilder().setCode(code).setMessage(message)).build();
    }
}
