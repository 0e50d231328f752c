package io.raftline.broker.storage;

import io.raftline.broker.config.ServerConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Formats a node's dirs ({@code raftline storage format}) and checks them before the node starts. The dirs
 * are every {@code log.dirs} entry (for a broker) and {@code metadata.dir} (for a quorum node).
 */
public final class StorageFormatter {

    private StorageFormatter() {
    }

    /** The dirs this node's roles use. */
    public static List<Path> dirsOf(ServerConfig config) {
        Set<Path> dirs = new LinkedHashSet<>();
        if (config.isBroker()) {
            dirs.addAll(config.logDirs());
        }
        if (config.isController()) {
            dirs.add(config.metadataDir());
        }
        return new ArrayList<>(dirs);
    }

    /**
     * Writes meta.properties into every dir. A dir that is already formatted is an error unless
     * {@code ignoreFormatted}, and then it is left as it is (even if formatted for another cluster: start-up
     * refuses that). Nothing is written when any dir fails the check.
     *
     * @return the dirs formatted now
     */
    public static List<Path> format(ServerConfig config, String clusterId, boolean ignoreFormatted) {
        ClusterIds.validate(clusterId);
        List<Path> toFormat = new ArrayList<>();
        for (Path dir : dirsOf(config)) {
            MetaProperties existing = MetaProperties.read(dir);
            if (existing == null) {
                toFormat.add(dir);
            } else if (!ignoreFormatted) {
                throw new StorageException("log directory " + dir + " is already formatted (cluster id "
                    + existing.clusterId() + "); use --ignore-formatted to skip formatted dirs");
            }
        }
        for (Path dir : toFormat) {
            new MetaProperties(MetaProperties.CURRENT_VERSION, clusterId, config.nodeId(), ClusterIds.random()).write(dir);
        }
        return toFormat;
    }

    /**
     * Checks every dir before start: formatted, one cluster id across them, this node's id, a version this
     * release understands. Returns the cluster id.
     */
    public static String checkFormatted(ServerConfig config) {
        String clusterId = null;
        Path first = null;
        for (Path dir : dirsOf(config)) {
            MetaProperties meta = MetaProperties.read(dir);
            if (meta == null) {
                throw new StorageException("directory " + dir + " is not formatted: run 'raftline storage format "
                    + "--config <file> --cluster-id <id>' first");
            }
            if (meta.version() > MetaProperties.CURRENT_VERSION) {
                throw new StorageException("directory " + dir + " has meta.properties version " + meta.version()
                    + ", newer than this release understands (" + MetaProperties.CURRENT_VERSION + ")");
            }
            if (meta.nodeId() != config.nodeId()) {
                throw new StorageException("directory " + dir + " was formatted for node " + meta.nodeId()
                    + ", but node.id is " + config.nodeId());
            }
            if (clusterId == null) {
                clusterId = meta.clusterId();
                first = dir;
            } else if (!clusterId.equals(meta.clusterId())) {
                throw new StorageException("directory " + dir + " belongs to cluster " + meta.clusterId()
                    + ", but " + first + " belongs to cluster " + clusterId);
            }
        }
        if (clusterId == null) {
            throw new StorageException("this node has no directories to use: set log.dirs or metadata.dir");
        }
        return clusterId;
    }
}
