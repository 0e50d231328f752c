package io.raftline.cli;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --command-config files a properties reader cannot read fail as one CliException that names the file. */
class ClientOptionsTest {

    @TempDir
    Path tmp;

    @Test
    void aCommandConfigWithAMalformedEscapeIsOneErrorNamingTheFile() throws Exception {
        Path file = tmp.resolve("client.properties");
        Files.writeString(file, "client.id=cli\\u12G4\n", StandardCharsets.UTF_8);
        ClientOptions options = new ClientOptions();
        options.commandConfig = file;
        assertThatThrownBy(options::clientProperties).isInstanceOf(CliException.class)
            .hasMessageContaining("--command-config " + file);
    }
}
