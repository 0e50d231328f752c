package io.raftline.common.sasl;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The server side of one SCRAM exchange (RFC 5802): {@link #evaluate} takes the client-first message and answers the
 * server-first, then takes the client-final and answers the server-final, after which {@link #username()} is the
 * authenticated user. Any failure is a {@link ScramException} and ends the exchange. An unknown user is answered as a
 * known one (a salt derived from its name) and refused at the proof, so the exchange does not tell who exists.
 * No channel binding (the client must send "n" or "y"), no authorization id other than the user itself, and Kafka's
 * {@code tokenauth} extension (delegation tokens) is refused. Not thread-safe: one per exchange.
 */
public final class ScramServer {

    private static final byte[] UNKNOWN_USER_SECRET = new byte[32];

    static {
        new SecureRandom().nextBytes(UNKNOWN_USER_SECRET);
    }

    private enum State { FIRST, FINAL, DONE, FAILED }

    private final ScramMechanism mechanism;
    private final Function<String, Optional<ScramCredential>> credentials;
    private final Supplier<String> nonces;
    private State state = State.FIRST;
    private String username;
    private ScramCredential credential;
    private boolean known;
    private String clientFirstBare;
    private String serverFirst;
    private String nonce;
    private String gs2Header;

    public ScramServer(ScramMechanism mechanism, Function<String, Optional<ScramCredential>> credentials) {
        this(mechanism, credentials, ScramMessages.randomNonces());
    }

    ScramServer(ScramMechanism mechanism, Function<String, Optional<ScramCredential>> credentials, Supplier<String> nonces) {
        this.mechanism = mechanism;
        this.credentials = credentials;
        this.nonces = nonces;
    }

    public ScramMechanism mechanism() {
        return mechanism;
    }

    /** The next server message for the client's {@code message}. */
    public byte[] evaluate(byte[] message) throws ScramException {
        try {
            return switch (state) {
                case FIRST -> first(ScramMessages.text(message));
                case FINAL -> last(ScramMessages.text(message));
                case DONE, FAILED -> throw new ScramException("the SCRAM exchange has already ended");
            };
        } catch (ScramException | RuntimeException e) {
            state = State.FAILED;
            throw e;
        }
    }

    /** Whether the client proved it holds the password. */
    public boolean complete() {
        return state == State.DONE;
    }

    /** The authenticated user, once {@link #complete()}. */
    public String username() {
        if (state != State.DONE) {
            throw new IllegalStateException("not authenticated");
        }
        return username;
    }

    private byte[] first(String message) throws ScramException {
        // gs2-header: cbind-flag "," [authzid] ","
        int firstComma = message.indexOf(',');
        int secondComma = firstComma < 0 ? -1 : message.indexOf(',', firstComma + 1);
        if (secondComma < 0) {
            throw new ScramException("malformed SCRAM client-first message: no GS2 header");
        }
        String flag = message.substring(0, firstComma);
        if (flag.startsWith("p=")) {
            throw new ScramException("SCRAM channel binding is not supported");
        }
        if (!flag.equals("n") && !flag.equals("y")) {
            throw new ScramException("malformed SCRAM client-first message: channel binding flag '"
                + ScramMessages.abbreviate(flag) + "'");
        }
        String authzid = message.substring(firstComma + 1, secondComma);
        gs2Header = message.substring(0, secondComma + 1);
        clientFirstBare = message.substring(secondComma + 1);
        String[] pairs = clientFirstBare.split(",", -1);
        if (pairs[0].startsWith("m=")) {
            throw new ScramException("SCRAM mandatory extensions are not supported");
        }
        if (pairs.length < 2 || !pairs[0].startsWith("n=") || !pairs[1].startsWith("r=") || pairs[1].length() == 2) {
            throw new ScramException("malformed SCRAM client-first message: it must start n=<user>,r=<nonce>");
        }
        username = ScramMessages.username(pairs[0].substring(2));
        String clientNonce = pairs[1].substring(2);
        if (username.isEmpty()) {
            throw new ScramException("malformed SCRAM client-first message: empty user name");
        }
        if (!authzid.isEmpty() && !authzid.equals("a=" + ScramMessages.saslName(username))) {
            throw new ScramException("authentication failed: authorization id differs from the user name");
        }
        for (int i = 2; i < pairs.length; i++) {
            // Kafka's extensions (key=value); the only one it defines is tokenauth, for delegation tokens
            if (pairs[i].equals("tokenauth=true")) {
                throw new ScramException("authentication failed: delegation tokens are not supported");
            }
        }
        Optional<ScramCredential> found = credentials.apply(username).filter(c -> c.mechanism() == mechanism);
        known = found.isPresent();
        credential = found.orElseGet(() -> decoy(username));
        nonce = clientNonce + nonces.get();
        serverFirst = "r=" + nonce + ",s=" + ScramMessages.encode(credential.salt()) + ",i=" + credential.iterations();
        state = State.FINAL;
        return serverFirst.getBytes(StandardCharsets.UTF_8);
    }

    private byte[] last(String message) throws ScramException {
        int proofAt = message.lastIndexOf(",p=");
        if (proofAt < 0) {
            throw new ScramException("malformed SCRAM client-final message: no proof");
        }
        String withoutProof = message.substring(0, proofAt);
        Map<Character, String> attrs = ScramMessages.attributes(withoutProof, "client-final message");
        String binding = ScramMessages.required(attrs, 'c', "client-final message");
        if (!binding.equals(ScramMessages.encode(gs2Header.getBytes(StandardCharsets.UTF_8)))) {
            throw new ScramException("authentication failed: channel binding differs from the GS2 header");
        }
        if (!nonce.equals(ScramMessages.required(attrs, 'r', "client-final message"))) {
            throw new ScramException("authentication failed: nonce mismatch");
        }
        byte[] proof = ScramMessages.base64(message.substring(proofAt + 3), "client-final message");
        String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
        byte[] signature = mechanism.hmac(credential.storedKey(), authMessage.getBytes(StandardCharsets.UTF_8));
        boolean proven = proof.length == signature.length
            && MessageDigest.isEqual(mechanism.hash(ScramMechanism.xor(proof, signature)), credential.storedKey());
        if (!proven || !known) {
            throw new ScramException("authentication failed: invalid credentials for user '" + username + "' with "
                + mechanism.mechanismName());
        }
        state = State.DONE;
        byte[] serverSignature = mechanism.hmac(credential.serverKey(), authMessage.getBytes(StandardCharsets.UTF_8));
        return ("v=" + ScramMessages.encode(serverSignature)).getBytes(StandardCharsets.UTF_8);
    }

    /** A credential no password matches, the same for a name each time. */
    private ScramCredential decoy(String name) {
        byte[] salt = mechanism.hmac(UNKNOWN_USER_SECRET, name.getBytes(StandardCharsets.UTF_8));
        byte[] key = mechanism.hmac(UNKNOWN_USER_SECRET, salt);
        return new ScramCredential(mechanism, java.util.Arrays.copyOf(salt, 16), key, key, ScramMechanism.MIN_ITERATIONS);
    }
}
