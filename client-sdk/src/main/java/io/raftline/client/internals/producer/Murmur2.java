package io.raftline.client.internals.producer;

/**
 * The 32-bit MurmurHash2 (Austin Appleby's), with the seed {@code 0x9747b28c} that Kafka's producer uses, so keys land
 * in the partition a Kafka user expects: {@code toPositive(hash(keyBytes)) % numPartitions}.
 */
public final class Murmur2 {

    private static final int SEED = 0x9747b28c;
    private static final int M = 0x5bd1e995;
    private static final int R = 24;

    private Murmur2() {
    }

    /** The hash of {@code data}. */
    public static int hash(byte[] data) {
        int length = data.length;
        int h = SEED ^ length;
        int whole = length & ~3;
        for (int i = 0; i < whole; i += 4) {
            int k = (data[i] & 0xff) | (data[i + 1] & 0xff) << 8 | (data[i + 2] & 0xff) << 16 | (data[i + 3] & 0xff) << 24;
            k *= M;
            k ^= k >>> R;
            k *= M;
            h *= M;
            h ^= k;
        }
        int tail = length & 3;
        if (tail == 3) {
            h ^= (data[whole + 2] & 0xff) << 16;
        }
        if (tail >= 2) {
            h ^= (data[whole + 1] & 0xff) << 8;
        }
        if (tail >= 1) {
            h ^= data[whole] & 0xff;
            h *= M;
        }
        h ^= h >>> 13;
        h *= M;
        h ^= h >>> 15;
        return h;
    }

    /** Clears the sign bit (not {@code Math.abs}, which leaves {@code MIN_VALUE} negative). */
    public static int toPositive(int n) {
        return n & 0x7fffffff;
    }

    /** The partition Kafka's default partitioner picks for a key. */
    public static int partitionForKey(byte[] keyBytes, int numPartitions) {
        return toPositive(hash(keyBytes)) % numPartitions;
    }
}
