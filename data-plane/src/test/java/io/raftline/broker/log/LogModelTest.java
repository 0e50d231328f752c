package io.raftline.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Random sequences of append / read / roll / truncate / flush / clean and unclean restart, checked after every
 * step against an in-memory model: a list of batches, each a base offset and its values. The operations are a list
 * that QuickTheories generates from a fixed seed and shrinks on failure (shorter lists, smaller op codes).
 */
class LogModelTest {

    /** A batch in the model. */
    record ModelBatch(long base, List<String> values) {
    }

    @Test
    void logBehavesLikeTheModel() {
        qt().withFixedSeed(8675309L).withExamples(60).withShrinkCycles(300)
            .forAll(lists().of(integers().between(0, 999)).ofType(lists().arrayList()).ofSizeBetween(1, 80), integers().between(200, 2000))
            .checkAssert((ops, segmentBytes) -> LogFixture.inFreshDirectory("model", root -> logBehavesLikeTheModel(root, ops, segmentBytes)));
    }

    private static void logBehavesLikeTheModel(Path root, List<Integer> ops, int segmentBytes) throws Exception {
        List<ModelBatch> model = new ArrayList<>();
        try (LogFixture f = new LogFixture(root, Map.of(LogConfig.SEGMENT_BYTES, Integer.toString(segmentBytes),
            LogConfig.INDEX_INTERVAL_BYTES, "100"))) {
            int step = 0;
            for (int op : ops) {
                step++;
                int kind = op % 100;
                long end = model.isEmpty() ? f.log.logEndOffset() : last(model);
                if (kind < 50) {
                    int count = 1 + op % 4;
                    String tag = step + "-" + op;
                    LogAppendInfo info = f.log.appendAsLeader(TestBatches.batch(count, tag + "-" + "p".repeat(op % 60), step), 1);
                    assertThat(info.firstOffset()).isEqualTo(end);
                    List<String> values = new ArrayList<>();
                    for (int i = 0; i < count; i++) {
                        values.add("v-" + tag + "-" + "p".repeat(op % 60) + "-" + i);
                    }
                    model.add(new ModelBatch(end, values));
                } else if (kind < 65) {
                    if (!model.isEmpty()) {
                        long first = model.get(0).base();
                        long offset = first + op % Math.max(1, end - first);
                        List<Map.Entry<Long, String>> got = TestBatches.records(f.log.read(offset, 1, Long.MAX_VALUE, true));
                        ModelBatch holding = model.stream().filter(b -> b.base() + b.values().size() > offset).findFirst().orElseThrow();
                        assertThat(got).hasSize(holding.values().size());
                        assertThat(got.get(0)).isEqualTo(Map.entry(holding.base(), holding.values().get(0)));
                    }
                } else if (kind < 73) {
                    f.log.roll();
                } else if (kind < 81) {
                    if (!model.isEmpty()) {
                        int keep = op % (model.size() + 1);
                        long to = keep == model.size() ? end : model.get(keep).base();
                        f.log.truncateTo(to);
                        model.subList(keep, model.size()).clear();
                        if (model.isEmpty()) {
                            assertThat(f.log.logEndOffset()).isEqualTo(to);
                        }
                    }
                } else if (kind < 89) {
                    f.restartClean();
                } else if (kind < 95) {
                    f.restartUnclean(op % 2 == 0 ? 0 : f.log.recoveryPoint());
                } else {
                    f.log.flush();
                }
                if (!model.isEmpty()) {
                    assertThat(f.log.logEndOffset()).as("step %d op %d", step, op).isEqualTo(last(model));
                }
            }
            List<Map.Entry<Long, String>> expected = new ArrayList<>();
            for (ModelBatch b : model) {
                for (int i = 0; i < b.values().size(); i++) {
                    expected.add(Map.entry(b.base() + i, b.values().get(i)));
                }
            }
            assertThat(LogCrashRecoveryTest.readAll(f.log)).isEqualTo(expected);
            f.restartUnclean(0);
            assertThat(LogCrashRecoveryTest.readAll(f.log)).isEqualTo(expected);
        }
    }

    private static long last(List<ModelBatch> model) {
        ModelBatch b = model.get(model.size() - 1);
        return b.base() + b.values().size();
    }
}
