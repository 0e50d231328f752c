package io.raftline.cli.command.certs;

import io.raftline.cli.CliException;
import io.raftline.common.tls.DevCertificates;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code raftline certs}: a development CA and the node and client certificates it signs, as PEM files. */
@Command(name = "certs", mixinStandardHelpOptions = true,
    description = "Makes a development CA and certificates signed by it (PEM files for the ssl.* keys).",
    subcommands = {CertsCommand.Ca.class, CertsCommand.Issue.class},
    footer = {"", "Examples:", "  raftline certs ca --dir tls",
        "  raftline certs issue --ca-dir tls --name node1 --dns localhost --ip 127.0.0.1 --out-dir tls"})
public final class CertsCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }

    @Command(name = "ca", mixinStandardHelpOptions = true,
        description = "Makes a CA in DIR: ca.pem (its certificate, the truststore of nodes and clients) and ca.key "
            + "(its private key, owner-readable only). Refuses if DIR already holds one.",
        footer = {"", "Example:", "  raftline certs ca --dir tls"})
    static final class Ca implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--dir", required = true, paramLabel = "DIR", description = "Where to write ca.pem and ca.key.")
        Path dir;

        @Override
        public Integer call() {
            try {
                DevCertificates.createCa(dir, Instant.now(), DevCertificates.CA_VALIDITY);
            } catch (IllegalArgumentException | UncheckedIOException e) {
                throw new CliException(e.getMessage(), e);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.println(dir.resolve(DevCertificates.CA_CERT));
            out.println(dir.resolve(DevCertificates.CA_KEY));
            out.flush();
            return 0;
        }
    }

    @Command(name = "issue", mixinStandardHelpOptions = true,
        description = "Issues N.pem (certificate with subject CN=N, then the CA's) and N.key in OUT, signed by the CA in "
            + "the --ca-dir, for server and client use; its mTLS principal is User:N. Replaces an earlier N.pem/N.key.",
        footer = {"", "Examples:", "  raftline certs issue --ca-dir tls --name node1 --dns localhost --ip 127.0.0.1 --out-dir tls",
            "  raftline certs issue --ca-dir tls --name app --out-dir tls"})
    static final class Issue implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--ca-dir", required = true, paramLabel = "DIR", description = "The CA (as raftline certs ca made it).")
        Path caDir;
        @Option(names = "--name", required = true, paramLabel = "N", description = "The certificate's CN and file names.")
        String name;
        @Option(names = "--dns", paramLabel = "HOST", description = "A DNS name the certificate is valid for (repeatable).")
        List<String> dns = new ArrayList<>();
        @Option(names = "--ip", paramLabel = "ADDR", description = "An IP address the certificate is valid for (repeatable).")
        List<String> ips = new ArrayList<>();
        @Option(names = "--out-dir", required = true, paramLabel = "OUT", description = "Where to write N.pem and N.key.")
        Path outDir;

        @Override
        public Integer call() {
            List<Path> written;
            try {
                written = DevCertificates.loadCa(caDir).issue(name, dns, ips, outDir, Instant.now(),
                    DevCertificates.CERT_VALIDITY);
            } catch (IllegalArgumentException | UncheckedIOException e) {
                throw new CliException(e.getMessage(), e);
            }
            PrintWriter out = spec.commandLine().getOut();
            written.forEach(out::println);
            out.flush();
            return 0;
        }
    }
}
