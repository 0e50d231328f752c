package io.raftline.common.tls;

import io.raftline.common.config.ConfigException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the PEM files the {@code ssl.*} keys name: certificate chains and bundles ({@code -----BEGIN CERTIFICATE-----}
 * blocks) and unencrypted PKCS#8 private keys ({@code -----BEGIN PRIVATE KEY-----}, RSA or EC), with the JDK alone.
 * Every failure is a {@link ConfigException} whose one line names the config key and the file.
 */
public final class PemFiles {

    private static final Pattern KEY_BLOCK =
        Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

    private PemFiles() {
    }

    /** The certificates in {@code file}, in file order (a chain: the leaf first). */
    public static List<X509Certificate> certificates(String key, Path file) {
        byte[] bytes = read(key, file);
        if (!new String(bytes, StandardCharsets.US_ASCII).contains("-----BEGIN CERTIFICATE-----")) {
            throw new ConfigException(key + " " + file + " holds no PEM certificate");
        }
        try {
            List<X509Certificate> certs = new ArrayList<>();
            CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(bytes))
                .forEach(c -> certs.add((X509Certificate) c));
            if (certs.isEmpty()) {
                throw new ConfigException(key + " " + file + " holds no PEM certificate");
            }
            return certs;
        } catch (GeneralSecurityException e) {
            throw new ConfigException(key + " " + file + " is not a PEM certificate file: " + e.getMessage());
        }
    }

    /** The PKCS#8 private key in {@code file}. */
    public static PrivateKey privateKey(String key, Path file) {
        String text = new String(read(key, file), StandardCharsets.US_ASCII);
        Matcher m = KEY_BLOCK.matcher(text);
        if (!m.find()) {
            String hint = text.contains("ENCRYPTED PRIVATE KEY") ? " (it is encrypted; give an unencrypted one)"
                : text.contains("BEGIN RSA PRIVATE KEY") || text.contains("BEGIN EC PRIVATE KEY")
                ? " (convert it with: openssl pkcs8 -topk8 -nocrypt)" : "";
            throw new ConfigException(key + " " + file + " holds no PEM PKCS#8 private key" + hint);
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(m.group(1));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key + " " + file + " holds a damaged PEM private key");
        }
        for (String algorithm : List.of("EC", "RSA", "Ed25519")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new ConfigException(key + " " + file + " holds a private key that is not RSA, EC or Ed25519");
    }

    /** Fails when {@code cert} is not valid at {@code now}. */
    public static void checkValidity(String key, Path file, X509Certificate cert, Instant now) {
        if (now.isAfter(cert.getNotAfter().toInstant())) {
            throw new ConfigException(key + " " + file + ": certificate expired at " + cert.getNotAfter().toInstant()
                + " (" + cert.getSubjectX500Principal().getName() + ")");
        }
        if (now.isBefore(cert.getNotBefore().toInstant())) {
            throw new ConfigException(key + " " + file + ": certificate not valid before "
                + cert.getNotBefore().toInstant() + " (" + cert.getSubjectX500Principal().getName() + ")");
        }
    }

    /** Fails when {@code privateKey} is not the key of {@code cert}: signs a challenge and verifies it. */
    public static void checkKeyMatches(String keyKey, Path keyFile, PrivateKey privateKey, Path certFile, X509Certificate cert) {
        String algorithm = switch (privateKey.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            default -> privateKey.getAlgorithm();
        };
        boolean matches;
        try {
            byte[] challenge = "raftline key check".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(privateKey);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(cert.getPublicKey());
            verifier.update(challenge);
            matches = verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            matches = false;
        }
        if (!matches) {
            throw new ConfigException(keyKey + " " + keyFile + " is not the private key of the certificate in " + certFile);
        }
    }

    private static byte[] read(String key, Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(key + " " + file + " does not exist");
        } catch (AccessDeniedException e) {
            throw new ConfigException(key + " " + file + " is not readable (permission denied)");
        } catch (IOException e) {
            throw new ConfigException(key + " " + file + " cannot be read: " + e.getMessage());
        }
    }
}
