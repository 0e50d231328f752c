package io.raftline.broker.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import java.util.List;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * QuickTheories generators of the field values a hostile or broken client sends: the edges of each integer type,
 * ids and counts that exist nowhere, empty and oversized names, random unicode. Each generator mixes a few valid
 * values in, so that a property also sees the request succeed.
 */
public final class HostileValues {

    private HostileValues() {
    }

    /** Partition ids, counts, epochs, sizes: the int edges, small negatives, huge values, anything. */
    public static Gen<Integer> ints() {
        return Generate.pick(List.of(-1, 0, 1, 2, -2, 3, Integer.MIN_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE - 1,
                1 << 20, 1_000_000_000, -1_000_000))
            .mix(integers().all(), 40);
    }

    /** Offsets, timestamps, epochs: the long edges and the special values (-1 latest, -2 earliest). */
    public static Gen<Long> longs64() {
        return Generate.pick(List.of(-1L, -2L, -3L, 0L, 1L, 5L, Long.MIN_VALUE, Long.MAX_VALUE, (long) Integer.MAX_VALUE,
                Integer.MAX_VALUE + 1L))
            .mix(longs().all(), 40);
    }

    /**
     * Topic names and group ids: empty, the dot names, valid-looking ones that exist nowhere, over 249 characters,
     * control characters, path separators, random unicode (lone surrogates included), and {@code existing}.
     */
    public static Gen<String> names(String... existing) {
        Gen<String> fixed = Generate.pick(List.of("", ".", "..", "nope", " ", "t/../t", "a\u0000b", "\ud800", "__consumer_offsets",
            "x".repeat(249), "x".repeat(250), "t\n", "t*", "%2e%2e"));
        Gen<String> odd = fixed.mix(strings().allPossible().ofLengthBetween(0, 40), 40)
            .mix(strings().basicLatinAlphabet().ofLengthBetween(240, 260), 10)
            .mix(strings().ascii().ofLengthBetween(1, 20_000), 5);
        return existing.length == 0 ? odd : odd.mix(Generate.pick(List.of(existing)), 35);
    }

    /** One of {@code n} counts of repeated fields: mostly few, sometimes none, sometimes many. */
    public static Gen<Integer> counts(int many) {
        return Generate.pick(List.of(0, 1, 1, 2, 3)).mix(integers().between(0, many), 20);
    }

    /** The check on every error a hostile request gets: none, or one code other than UNKNOWN with a message. */
    public static void oneError(Error error) {
        if (error.getCode() == ErrorCode.NONE) {
            return;
        }
        assertThat(error.getCode()).as("an error code for bad input, not an unexpected failure: %s", error.getMessage())
            .isNotIn(ErrorCode.UNKNOWN, ErrorCode.UNRECOGNIZED);
        assertThat(error.getMessage()).as("the message of %s", error.getCode()).isNotBlank();
    }
}
