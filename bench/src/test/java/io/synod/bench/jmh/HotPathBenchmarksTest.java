package io.synod.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientFrame;
import io.synod.server.wire.WireFrame;
import org.junit.jupiter.api.Test;

/**
 * Runs each JMH benchmark's setup, a few operations and teardown directly (no JMH harness), so the
 * suite cannot rot unnoticed: a codec round trip must give back the frame, the log and RocksDB must
 * take the batches, and the in-memory replicas must commit and answer every proposal.
 */
class HotPathBenchmarksTest {

    @Test
    void codecRoundTripsTheFramesItMeasures() throws Exception {
        WireCodecBenchmark b = new WireCodecBenchmark();
        b.entries = 64;
        b.valueBytes = 1024;
        b.setup();
        WireFrame.PeerMessage accept = (WireFrame.PeerMessage) b.decodeAccept();
        assertEquals(3, accept.group());
        assertTrue(b.encodeAccept().length > 64 * 1024, "64 entries of 1 KiB");
        assertTrue(b.decodeClientCommand() instanceof ClientFrame.Command);
        assertTrue(b.encodeClientCommand().length > 1024);
    }

    @Test
    void logAppendsBatchesWithOneSyncEach() throws Exception {
        LogAppendBenchmark b = new LogAppendBenchmark();
        b.batch = 64;
        b.valueBytes = 1024;
        b.open();
        try {
            long slot = 0;
            for (int i = 0; i < 5; i++) {
                slot = b.appendBatchAndSync();
            }
            assertEquals(5 * 64, slot);
        } finally {
            b.close();
        }
    }

    @Test
    void rocksAppliesBatches() throws Exception {
        RocksApplyBenchmark b = new RocksApplyBenchmark();
        b.batch = 64;
        b.valueBytes = 128;
        b.open();
        try {
            assertEquals(64, b.applyBatch());
            assertEquals(128, b.applyBatch());
        } finally {
            b.close();
        }
    }

    @Test
    void replicasCommitEveryProposal() {
        ReplicaStepBenchmark b = new ReplicaStepBenchmark();
        b.batch = 64;
        b.valueBytes = 128;
        b.setup();
        for (int i = 1; i <= 20; i++) {
            assertEquals(64L * i, b.proposeAndCommit()); // it throws if any proposal stays unanswered
        }
    }
}
