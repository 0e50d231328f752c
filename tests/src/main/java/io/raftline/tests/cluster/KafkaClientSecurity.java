package io.raftline.tests.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/** kafka-clients settings for a TLS Kafka listener from the PEM files Raftline's certificates come in. */
public final class KafkaClientSecurity {

    private KafkaClientSecurity() {
    }

    /** security.protocol=SSL trusting {@code ca}, presenting {@code cert} and {@code key} (mTLS) when they are given. */
    public static Properties ssl(Path ca, Path cert, Path key) {
        Properties p = new Properties();
        p.setProperty("security.protocol", "SSL");
        trust(p, ca);
        if (cert != null) {
            p.setProperty("ssl.keystore.type", "PEM");
            p.setProperty("ssl.keystore.certificate.chain", read(cert));
            p.setProperty("ssl.keystore.key", read(key));
        }
        return p;
    }

    /** security.protocol=SASL_SSL with SCRAM-SHA-512 as {@code user}. */
    public static Properties scram(Path ca, String user, String password) {
        Properties p = new Properties();
        p.setProperty("security.protocol", "SASL_SSL");
        trust(p, ca);
        p.setProperty("sasl.mechanism", "SCRAM-SHA-512");
        p.setProperty("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
            + user + "\" password=\"" + password + "\";");
        return p;
    }

    private static void trust(Properties p, Path ca) {
        p.setProperty("ssl.truststore.type", "PEM");
        p.setProperty("ssl.truststore.certificates", read(ca));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
