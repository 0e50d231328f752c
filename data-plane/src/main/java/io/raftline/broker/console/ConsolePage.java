package io.raftline.broker.console;

/**
 * Which rows of a list the console sends: the page asks for {@code offset} and {@code limit} (both optional), the
 * list has {@code total} rows. Pure.
 *
 * <p>Decisions: no limit means {@link #DEFAULT_LIMIT}; a limit above {@link #MAX_LIMIT} is refused by the caller
 * (400), so one request never carries thousands of partitions; an offset at or past the end (the list shrank since
 * the page was read) moves to the start of the last page, so a refresh shows the last rows rather than nothing.
 *
 * @param offset the first row sent
 * @param limit rows asked for at most
 * @param total rows in the whole list
 */
public record ConsolePage(int offset, int limit, int total) {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;

    /** The page for {@code offset} (null: 0) and {@code limit} (null: the default) over {@code total} rows. */
    static ConsolePage of(Long offset, Long limit, int total) {
        int size = limit == null ? DEFAULT_LIMIT : (int) Math.max(1, Math.min(MAX_LIMIT, limit));
        long from = offset == null ? 0 : Math.max(0, offset);
        if (from >= total) {
            from = total == 0 ? 0 : ((total - 1) / size) * (long) size;
        }
        return new ConsolePage((int) from, size, total);
    }

    /** One past the last row sent. */
    public int end() {
        return Math.min(total, offset + limit);
    }

    /** The offset of the next page, or null on the last. */
    public Integer next() {
        return end() < total ? end() : null;
    }

    /** The offset of the previous page, or null on the first. */
    public Integer previous() {
        return offset > 0 ? Math.max(0, offset - limit) : null;
    }
}
