package io.raftline.common.sasl;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The client side of one SCRAM exchange (RFC 5802): {@link #firstMessage()}, then {@link #finalMessage} for the
 * server-first message, then {@link #verify} of the server-final message, which proves the server holds this user's
 * ServerKey. Not thread-safe: one per exchange.
 */
public final class ScramClient {

    private static final String GS2_HEADER = "n,,";

    private final ScramMechanism mechanism;
    private final String username;
    private final String password;
    private final String clientNonce;
    private String clientFirstBare;
    private byte[] expectedServerSignature;

    public ScramClient(ScramMechanism mechanism, String username, String password) {
        this(mechanism, username, password, ScramMessages.randomNonces());
    }

    ScramClient(ScramMechanism mechanism, String username, String password, Supplier<String> nonces) {
        this.mechanism = mechanism;
        this.username = username;
        this.password = password;
        this.clientNonce = nonces.get();
    }

    public byte[] firstMessage() {
        clientFirstBare = "n=" + ScramMessages.saslName(username) + ",r=" + clientNonce;
        return (GS2_HEADER + clientFirstBare).getBytes(StandardCharsets.UTF_8);
    }

    public byte[] finalMessage(byte[] serverFirstMessage) throws ScramException {
        if (clientFirstBare == null) {
            throw new IllegalStateException("firstMessage() first");
        }
        String serverFirst = ScramMessages.text(serverFirstMessage);
        Map<Character, String> attrs = ScramMessages.attributes(serverFirst, "server-first message");
        if (attrs.containsKey('e')) {
            throw new ScramException("authentication failed: " + attrs.get('e'));
        }
        String nonce = ScramMessages.required(attrs, 'r', "server-first message");
        if (!nonce.startsWith(clientNonce) || nonce.length() == clientNonce.length()) {
            throw new ScramException("authentication failed: the server's nonce does not extend ours");
        }
        byte[] salt = ScramMessages.base64(ScramMessages.required(attrs, 's', "server-first message"), "server-first message");
        int iterations;
        try {
            iterations = Integer.parseInt(ScramMessages.required(attrs, 'i', "server-first message"));
        } catch (NumberFormatException e) {
            throw new ScramException("malformed SCRAM server-first message: iteration count is not a number");
        }
        if (iterations < ScramMechanism.MIN_ITERATIONS || iterations > ScramMechanism.MAX_ITERATIONS) {
            throw new ScramException("authentication failed: the server asks for " + iterations + " iterations");
        }
        byte[] salted = mechanism.saltedPassword(password, salt, iterations);
        String withoutProof = "c=" + ScramMessages.encode(GS2_HEADER.getBytes(StandardCharsets.UTF_8)) + ",r=" + nonce;
        byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
        byte[] clientKey = mechanism.clientKey(salted);
        byte[] signature = mechanism.hmac(mechanism.hash(clientKey), authMessage);
        expectedServerSignature = mechanism.hmac(mechanism.serverKey(salted), authMessage);
        return (withoutProof + ",p=" + ScramMessages.encode(ScramMechanism.xor(clientKey, signature)))
            .getBytes(StandardCharsets.UTF_8);
    }

    public void verify(byte[] serverFinalMessage) throws ScramException {
        if (expectedServerSignature == null) {
            throw new IllegalStateException("finalMessage() first");
        }
        Map<Character, String> attrs = ScramMessages.attributes(ScramMessages.text(serverFinalMessage),
            "server-final message");
        if (attrs.containsKey('e')) {
            throw new ScramException("authentication failed: " + attrs.get('e'));
        }
        byte[] signature = ScramMessages.base64(ScramMessages.required(attrs, 'v', "server-final message"),
            "server-final message");
        if (!MessageDigest.isEqual(signature, expectedServerSignature)) {
            throw new ScramException("authentication failed: the server's signature is wrong (not the cluster we know)");
        }
    }
}
