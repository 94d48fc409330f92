package io.synod.bench.report;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StatisticsTest {

    @Test
    void nearestRankPercentiles() {
        long[] sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        assertEquals(5, LatencySummary.percentile(sorted, 50));
        assertEquals(10, LatencySummary.percentile(sorted, 99));
        assertEquals(1, LatencySummary.percentile(sorted, 0));
        LatencySummary summary = LatencySummary.ofNanos(new long[] {3_000_000, 1_000_000, 2_000_000});
        assertEquals(3, summary.count());
        assertEquals(2.0, summary.medianMillis(), 1e-9);
        assertEquals(2.0, summary.meanMillis(), 1e-9);
        assertEquals(3.0, summary.p99Millis(), 1e-9);
        assertTrue(LatencySummary.ofNanos(new long[0]).isEmpty());
    }

    @Test
    void jainIndexIsOneForEqualSharesAndOneOverNForAMonopoly() {
        assertEquals(1.0, Fairness.jainIndex(new double[] {3, 3, 3, 3}), 1e-12);
        assertEquals(0.25, Fairness.jainIndex(new double[] {8, 0, 0, 0}), 1e-12);
        assertTrue(Double.isNaN(Fairness.jainIndex(new double[] {0, 0})));
    }

    @Test
    void inversionRateCountsOverlappingWaitsGrantedOutOfOrder() {
        // a asks at 0, b at 1, c at 2; FIFO grants a, b, c.
        assertEquals(0.0, Fairness.inversionRate(new long[] {0, 1, 2}, new long[] {10, 20, 30}), 1e-12);
        // Reverse order: every overlapping pair inverted.
        assertEquals(1.0, Fairness.inversionRate(new long[] {0, 1, 2}, new long[] {30, 20, 10}), 1e-12);
        // No overlap at all: undefined.
        assertTrue(Double.isNaN(Fairness.inversionRate(new long[] {0, 10}, new long[] {5, 15})));
    }

    @Test
    void csvQuotesCellsThatNeedIt() {
        assertEquals("plain", CsvTable.quote("plain"));
        assertEquals("\"a,b\"", CsvTable.quote("a,b"));
        assertEquals("\"say \"\"hi\"\"\"", CsvTable.quote("say \"hi\""));
        assertEquals("", CsvTable.format(Double.NaN));
        assertEquals("1.500", CsvTable.format(1.5));
    }
}
