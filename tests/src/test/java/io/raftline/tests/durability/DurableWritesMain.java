package io.raftline.tests.durability;

import io.raftline.broker.storage.MetaProperties;
import java.nio.file.Path;

/** Writes a node's meta.properties into the dir named by its argument: the process that {@link DurableWritesTest} traces. */
public final class DurableWritesMain {

    private DurableWritesMain() {
    }

    public static void main(String[] args) {
        new MetaProperties(MetaProperties.CURRENT_VERSION, "AAAAAAAAAAAAAAAAAAAAAA", 1, "BBBBBBBBBBBBBBBBBBBBBB")
            .write(Path.of(args[0]));
    }
}
