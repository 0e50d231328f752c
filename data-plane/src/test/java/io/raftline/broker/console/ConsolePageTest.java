package io.raftline.broker.console;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConsolePageTest {

    /** Absent (a parameter not given, or no next or previous page). */
    private static final long N = Long.MIN_VALUE;

    private static Long given(long v) {
        return v == N ? null : v;
    }

    private static Integer expected(long v) {
        return v == N ? null : (int) v;
    }

    @Test
    void pagesFollowTheTable() {
        // {offset, limit, total, expected offset, limit, end, next, previous}
        long[][] table = {
            {N, N, 0, 0, 100, 0, N, N},          // an empty list: one empty page
            {N, N, 3, 0, 100, 3, N, N},          // a small list fits the default page
            {N, N, 5000, 0, 100, 100, 100, N},    // thousands: only the first page
            {100, N, 5000, 100, 100, 200, 200, 0},
            {4950, 100, 5000, 4950, 100, 5000, N, 4850},
            {30, 100, 5000, 30, 100, 130, 130, 0},   // an offset inside the first page: previous is 0
            {6000, 100, 5000, 4900, 100, 5000, N, 4800}, // past the end (the list shrank): the last page
            {5000, 100, 5000, 4900, 100, 5000, N, 4800},
            {250, 100, 250, 200, 100, 250, N, 100},
            {0, 5000, 5000, 0, 1000, 1000, 1000, N}, // capped at the most one page may carry
            {0, 0, 10, 0, 1, 1, 1, N},
            {-5, 10, 10, 0, 10, 10, N, N},
        };
        for (long[] row : table) {
            ConsolePage p = ConsolePage.of(given(row[0]), given(row[1]), (int) row[2]);
            String as = "offset=" + given(row[0]) + " limit=" + given(row[1]) + " total=" + row[2];
            assertThat(p.offset()).as(as).isEqualTo((int) row[3]);
            assertThat(p.limit()).as(as).isEqualTo((int) row[4]);
            assertThat(p.end()).as(as).isEqualTo((int) row[5]);
            assertThat(p.next()).as(as).isEqualTo(expected(row[6]));
            assertThat(p.previous()).as(as).isEqualTo(expected(row[7]));
        }
    }
}
