package io.raftline.broker.log;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The compactor's key -> latest offset map, in a fixed number of bytes ({@code log.cleaner.dedupe.buffer.size}):
 * open addressing with linear probing over 24-byte slots (the key's 16-byte MD5 digest, then the offset). It
 * holds at most 90% of its slots, so probes stay short; {@link #isFull()} tells the cleaner to stop mapping and
 * clean what it has mapped (the rest of the range goes in a later pass).
 *
 * <p>Two keys with the same MD5 digest would be taken for one key (the older record of the other key dropped);
 * as in Kafka's cleaner, that chance (about n^2 / 2^129 for n keys) is accepted.
 *
 * <p>Not thread-safe: one cleaning at a time.
 */
final class KeyOffsetMap {

    static final int DIGEST_BYTES = 16;
    static final int SLOT_BYTES = DIGEST_BYTES + 8;
    private static final double MAX_LOAD = 0.9;

    private final ByteBuffer slots;
    private final int slotCount;
    private final int maxEntries;
    private final MessageDigest md5;
    private final byte[] digest = new byte[DIGEST_BYTES];
    private final byte[] probe = new byte[DIGEST_BYTES];
    private int entries;

    /** A map in (about) {@code bytes} bytes; at least 2 slots. */
    KeyOffsetMap(long bytes) {
        long count = Math.max(2, Math.min(bytes / SLOT_BYTES, Integer.MAX_VALUE / SLOT_BYTES));
        this.slotCount = (int) count;
        this.maxEntries = Math.max(1, (int) (slotCount * MAX_LOAD));
        this.slots = ByteBuffer.allocate(slotCount * SLOT_BYTES);
        try {
            this.md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no MD5, which every Java platform must provide", e);
        }
    }

    int size() {
        return entries;
    }

    int capacity() {
        return maxEntries;
    }

    boolean isFull() {
        return entries >= maxEntries;
    }

    /** True if {@code key} is mapped, or there is room to map it. */
    boolean canPut(byte[] key) {
        return !isFull() || slotOf(key) >= 0 && present;
    }

    /** Maps {@code key} to {@code offset} (the later offset wins only by call order: call in offset order). */
    void put(byte[] key, long offset) {
        int slot = slotOf(key);
        if (slot < 0) {
            throw new IllegalStateException("key offset map is full: " + entries + " entries");
        }
        int at = slot * SLOT_BYTES;
        if (!present) {
            if (isFull()) {
                throw new IllegalStateException("key offset map is full: " + entries + " entries");
            }
            slots.put(at, digest, 0, DIGEST_BYTES);
            entries++;
        }
        slots.putLong(at + DIGEST_BYTES, offset);
    }

    /** The offset mapped for {@code key}, or -1. */
    long get(byte[] key) {
        int slot = slotOf(key);
        return slot >= 0 && present ? slots.getLong(slot * SLOT_BYTES + DIGEST_BYTES) : -1;
    }

    void clear() {
        Arrays.fill(slots.array(), (byte) 0);
        entries = 0;
    }

    /** Set by {@link #slotOf}: whether the returned slot holds the key (else it is the empty slot for it). */
    private boolean present;

    /** The slot holding the key's digest, or the empty slot where it would go; -1 if none (the table is full). */
    private int slotOf(byte[] key) {
        md5.reset();
        md5.update(key);
        byte[] d = md5.digest();
        System.arraycopy(d, 0, digest, 0, DIGEST_BYTES);
        // Never all zeros: that marks an empty slot.
        boolean zero = true;
        for (byte b : digest) {
            if (b != 0) {
                zero = false;
                break;
            }
        }
        if (zero) {
            digest[0] = 1;
        }
        int start = (int) Math.floorMod(ByteBuffer.wrap(digest).getLong(), (long) slotCount);
        for (int i = 0; i < slotCount; i++) {
            int slot = (start + i) % slotCount;
            int at = slot * SLOT_BYTES;
            slots.get(at, probe, 0, DIGEST_BYTES);
            if (isEmpty(probe)) {
                present = false;
                return slot;
            }
            if (Arrays.equals(probe, digest)) {
                present = true;
                return slot;
            }
        }
        present = false;
        return -1;
    }

    private static boolean isEmpty(byte[] d) {
        for (byte b : d) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }
}
