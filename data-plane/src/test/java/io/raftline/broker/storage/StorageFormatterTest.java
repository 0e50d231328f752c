package io.raftline.broker.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.broker.config.ServerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StorageFormatterTest {

    @TempDir
    Path tmp;

    private ServerConfig config(int nodeId) {
        return ServerConfig.of(Map.of(
            "node.id", Integer.toString(nodeId),
            "process.roles", "broker,controller",
            "quorum.voters", "1@127.0.0.1:9093",
            "log.dirs", tmp.resolve("a") + "," + tmp.resolve("b"),
            "metadata.dir", tmp.resolve("meta").toString()));
    }

    @Test
    void randomIdsAreValid() {
        String id = ClusterIds.random();
        assertThat(id).hasSize(22).matches("[A-Za-z0-9_-]{22}");
        ClusterIds.validate(id);
        assertThatThrownBy(() -> ClusterIds.validate("short")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClusterIds.validate("!!!!!!!!!!!!!!!!!!!!!!")).hasMessageContaining("not a valid cluster id");
    }

    @Test
    void formatWritesEveryDirAndTheNodeStartsOnIt() {
        String id = ClusterIds.random();
        assertThat(StorageFormatter.format(config(1), id, false)).hasSize(3);
        assertThat(StorageFormatter.checkFormatted(config(1))).isEqualTo(id);
        assertThat(MetaProperties.read(tmp.resolve("meta")).nodeId()).isEqualTo(1);
    }

    @Test
    void formattingTwiceIsRefusedUnlessIgnored() {
        String id = ClusterIds.random();
        StorageFormatter.format(config(1), id, false);
        assertThatThrownBy(() -> StorageFormatter.format(config(1), ClusterIds.random(), false))
            .isInstanceOf(StorageException.class).hasMessageContaining("already formatted");
        assertThat(StorageFormatter.format(config(1), ClusterIds.random(), true)).isEmpty();
        assertThat(StorageFormatter.checkFormatted(config(1))).isEqualTo(id);
    }

    @Test
    void unformattedDirIsRefused() {
        assertThatThrownBy(() -> StorageFormatter.checkFormatted(config(1)))
            .isInstanceOf(StorageException.class).hasMessageContaining("is not formatted");
    }

    @Test
    void mixedClustersAreRefused() {
        StorageFormatter.format(config(1), ClusterIds.random(), false);
        new MetaProperties(1, ClusterIds.random(), 1, ClusterIds.random()).write(tmp.resolve("b"));
        assertThatThrownBy(() -> StorageFormatter.checkFormatted(config(1))).hasMessageContaining("belongs to cluster");
    }

    @Test
    void otherNodesDirIsRefused() {
        StorageFormatter.format(config(1), ClusterIds.random(), false);
        assertThatThrownBy(() -> StorageFormatter.checkFormatted(config(2))).hasMessageContaining("formatted for node 1");
    }

    @Test
    void newerVersionIsRefused() throws IOException {
        String id = ClusterIds.random();
        StorageFormatter.format(config(1), id, false);
        Path file = MetaProperties.file(tmp.resolve("a"));
        Files.writeString(file, Files.readString(file).replace("version=1", "version=2"));
        assertThatThrownBy(() -> StorageFormatter.checkFormatted(config(1))).hasMessageContaining("newer than this release");
    }

    @Test
    void badClusterIdWritesNothing() {
        assertThatThrownBy(() -> StorageFormatter.format(config(1), "not-an-id", false))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(Files.exists(tmp.resolve("a"))).isFalse();
    }
}
