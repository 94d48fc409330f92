package io.synod.core.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Simulated write throughput on bandwidth-limited links, RS-Paxos coded accepts (N = 5, F = 1, X = 3)
 * against full copies, with the paper's links (Mu et al., HPDC 2014, Fig. 5/6: 500 Mbit/s, RTT 100 ± 20 ms).
 * Asserts only ratios measured in the same run (coded above full copies for large values, less on the
 * busiest link, total peer bytes no more than full copies plus metadata), never a rate;
 * the table goes to standard output (docs/erasure.md quotes the longer {@code synod bench coded --sim} run).
 */
class CodedThroughputTest {
    @Test
    void codedWritesOutrunFullCopiesOnCappedLinksForLargeValues() {
        System.out.println(CodedThroughput.HEADER);
        for (int size : new int[] {256 << 10, (1 << 20) - 1024}) {
            CodedThroughput.Params params = CodedThroughput.Params.paper(size).withTiming(1_000_000_000L, 3_000_000_000L);
            CodedThroughput.Row row = CodedThroughput.measure(params);
            System.out.println(row.format());
            assertTrue(row.full().writes() > 0 && row.coded().writes() > 0, row.format());
            assertTrue(row.full().converged() && row.coded().converged(), "replicas converged after the drain: " + row.format());
            assertTrue(row.throughputRatio() > 1.0, "coded throughput ratio " + row.format());
            // Followers still rebuild every coded value (recovery reads, docs/erasure.md "Not done"), so the
            // total peer bytes are about those of full copies; what coding must lower is the busiest link's.
            assertTrue(row.byteRatio() <= 1.10, "coded peer bytes per write above full copies plus metadata: " + row.format());
            assertTrue(row.coded().busiestLinkBytesPerWrite() < 0.75 * row.full().busiestLinkBytesPerWrite(),
                    "coded busiest-link bytes per write " + row.coded().busiestLinkBytesPerWrite() + " vs full "
                            + row.full().busiestLinkBytesPerWrite() + ": " + row.format());
        }
    }
}
