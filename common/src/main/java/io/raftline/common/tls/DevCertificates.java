package io.raftline.common.tls;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.regex.Pattern;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A development certificate authority in a folder: {@code ca.pem} (its self-signed certificate) and {@code ca.key}
 * (its private key, PKCS#8 PEM, readable by the owner only), and the certificates it signs, {@code N.pem} and
 * {@code N.key}, with the subject {@code CN=N} (so the mTLS principal of such a certificate is {@code User:N}), the
 * subject alternative names asked for (what hostname verification checks), and both the server and the client
 * purpose, so one certificate serves a node on its listeners and on its links to other nodes.
 *
 * <p>Needs BouncyCastle (bcpkix) on the class path: an optional dependency of this module.
 *
 * <p>Keys are ECDSA P-256 (fast handshakes, supported by the JDK and Netty alike). Nothing here is meant for a
 * production CA: the CA key sits unencrypted beside its certificate.
 */
public final class DevCertificates {

    public static final String CA_CERT = "ca.pem";
    public static final String CA_KEY = "ca.key";
    /** A development CA lasts ten years, a certificate it issues one year. */
    public static final Duration CA_VALIDITY = Duration.ofDays(3650);
    public static final Duration CERT_VALIDITY = Duration.ofDays(365);

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final String SIGNATURE = "SHA256withECDSA";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final X509Certificate caCert;
    private final PrivateKey caKey;

    private DevCertificates(X509Certificate caCert, PrivateKey caKey) {
        this.caCert = caCert;
        this.caKey = caKey;
    }

    /**
     * Makes a new CA in {@code dir} valid from {@code now} for {@code validity}; refuses (changing nothing) when
     * {@code dir} already holds one, since replacing a CA invalidates every certificate it issued.
     */
    public static DevCertificates createCa(Path dir, Instant now, Duration validity) {
        Path certFile = dir.resolve(CA_CERT);
        Path keyFile = dir.resolve(CA_KEY);
        if (Files.exists(certFile) || Files.exists(keyFile)) {
            throw new IllegalArgumentException(dir + " already holds a CA (" + CA_CERT + " or " + CA_KEY + ")");
        }
        KeyPair pair = newKeyPair();
        X500Principal subject = new X500Principal("CN=Raftline development CA " + now.getEpochSecond());
        try {
            JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject, serial(), Date.from(now),
                Date.from(now.plus(validity)), subject, pair.getPublic());
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            builder.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
            X509Certificate cert = sign(builder.build(signer(pair.getPrivate())));
            Files.createDirectories(dir);
            writeKey(keyFile, pair.getPrivate());
            writePem(certFile, List.of(cert));
            return new DevCertificates(cert, pair.getPrivate());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the CA in " + dir + ": " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a CA: " + e.getMessage(), e);
        }
    }

    /** The CA that {@link #createCa} wrote in {@code dir}. */
    public static DevCertificates loadCa(Path dir) {
        Path certFile = dir.resolve(CA_CERT);
        Path keyFile = dir.resolve(CA_KEY);
        for (Path file : List.of(certFile, keyFile)) {
            if (!Files.isReadable(file)) {
                throw new IllegalArgumentException("no CA in " + dir + ": cannot read " + file
                    + " (make one with: raftline certs ca --dir " + dir + ")");
            }
        }
        try {
            Object cert = readPem(certFile);
            Object key = readPem(keyFile);
            if (!(cert instanceof X509CertificateHolder holder) || !(key instanceof PrivateKeyInfo info)) {
                throw new IllegalArgumentException(dir + " does not hold a CA certificate in " + CA_CERT
                    + " and a PKCS#8 private key in " + CA_KEY);
            }
            PrivateKey privateKey = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(info.getEncoded()));
            return new DevCertificates(new JcaX509CertificateConverter().getCertificate(holder), privateKey);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read the CA in " + dir + ": " + e.getMessage(), e);
        }
    }

    public X509Certificate caCertificate() {
        return caCert;
    }

    /**
     * Issues {@code outDir/NAME.pem} (the certificate followed by the CA's, a chain a server can present) and
     * {@code outDir/NAME.key}, valid from {@code notBefore} for {@code validity}, replacing any earlier pair of that
     * name (rotation). The key is written first and each file is moved into place whole, so a reader sees either
     * the old or the new file, never half of one.
     *
     * @param dnsNames subject alternative DNS names
     * @param ipAddresses subject alternative IP addresses (literal v4 or v6)
     */
    public List<Path> issue(String name, List<String> dnsNames, List<String> ipAddresses, Path outDir, Instant notBefore,
                            Duration validity) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("--name '" + name + "' must be 1-64 letters, digits, '.', '_' or '-'"
                + " (it names the files and becomes the certificate's CN)");
        }
        List<GeneralName> alt = new ArrayList<>();
        for (String dns : dnsNames) {
            if (dns.isBlank() || dns.contains(" ")) {
                throw new IllegalArgumentException("--dns '" + dns + "' is not a host name");
            }
            alt.add(new GeneralName(GeneralName.dNSName, dns));
        }
        for (String ip : ipAddresses) {
            alt.add(new GeneralName(GeneralName.iPAddress, ipLiteral(ip)));
        }
        KeyPair pair = newKeyPair();
        try {
            JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(caCert, serial(), Date.from(notBefore),
                Date.from(notBefore.plus(validity)), new X500Principal("CN=" + name), pair.getPublic());
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
            builder.addExtension(Extension.extendedKeyUsage, false,
                new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            builder.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(caCert));
            builder.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
            if (!alt.isEmpty()) {
                builder.addExtension(Extension.subjectAlternativeName, false,
                    new GeneralNames(alt.toArray(GeneralName[]::new)));
            }
            X509Certificate cert = sign(builder.build(signer(caKey)));
            Files.createDirectories(outDir);
            Path keyFile = outDir.resolve(name + ".key");
            Path certFile = outDir.resolve(name + ".pem");
            writeKey(keyFile, pair.getPrivate());
            writePem(certFile, List.of(cert, caCert));
            return List.of(certFile, keyFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + name + " in " + outDir + ": " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot issue a certificate for " + name + ": " + e.getMessage(), e);
        }
    }

    private static String ipLiteral(String ip) {
        // Only literals: InetAddress would otherwise resolve a host name through DNS.
        if (!ip.matches("[0-9.]+|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*")) {
            throw new IllegalArgumentException("--ip '" + ip + "' is not an IPv4 or IPv6 address");
        }
        try {
            return InetAddress.getByName(ip).getHostAddress();
        } catch (IOException e) {
            throw new IllegalArgumentException("--ip '" + ip + "' is not an IPv4 or IPv6 address", e);
        }
    }

    private static KeyPair newKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no EC P-256 key generator in this JDK", e);
        }
    }

    private static BigInteger serial() {
        return new BigInteger(127, RANDOM).add(BigInteger.ONE);
    }

    private static ContentSigner signer(PrivateKey key) throws GeneralSecurityException {
        try {
            return new JcaContentSignerBuilder(SIGNATURE).build(key);
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
    }

    private static X509Certificate sign(X509CertificateHolder holder) throws GeneralSecurityException {
        return new JcaX509CertificateConverter().getCertificate(holder);
    }

    private static Object readPem(Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII); PEMParser parser = new PEMParser(reader)) {
            return parser.readObject();
        }
    }

    private static void writeKey(Path file, PrivateKey key) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter pem = new JcaPEMWriter(text)) {
            pem.writeObject(new JcaPKCS8Generator(key, null));
        }
        writeAtomically(file, text.toString(), true);
    }

    private static void writePem(Path file, List<X509Certificate> certs) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter pem = new JcaPEMWriter(text)) {
            for (X509Certificate cert : certs) {
                pem.writeObject(cert);
            }
        }
        writeAtomically(file, text.toString(), false);
    }

    private static void writeAtomically(Path file, String text, boolean secret) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        if (secret && Files.getFileStore(file.toAbsolutePath().getParent()).supportsFileAttributeView("posix")) {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        try (Writer writer = Files.newBufferedWriter(tmp, StandardCharsets.US_ASCII)) {
            writer.write(text);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
