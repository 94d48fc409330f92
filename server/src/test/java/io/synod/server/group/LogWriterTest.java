package io.synod.server.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Ready;
import io.synod.server.log.NodeStorage;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The log writer: one synced batch for what the groups handed over in the worker passes under way. */
class LogWriterTest {
    @TempDir
    Path dir;

    private static Ready ready(long slot) {
        return new Ready(null, List.of(new Entry(slot, new Ballot(1, 0), new Command(3, slot, new byte[100]))), null, 0,
                List.of(), List.of(), List.of(), false);
    }

    /**
     * Two groups' Readys handed over in one worker pass, the second after the writer already woke on the first: the
     * writer waits for the pass to end and covers both with one fsync (Dragonboat's one synced batch per pass), and
     * neither completes before the pass has ended.
     */
    @Test
    @Timeout(60)
    void readysOfOnePassAreSyncedTogetherEvenWhenTheWriterWokeOnTheFirst() throws Exception {
        NodeStorage storage = NodeStorage.open(dir, 1 << 16, 2);
        LogWriter writer = new LogWriter(System::nanoTime, null, "test-writer", 1, TimeUnit.SECONDS.toNanos(30));
        writer.start();
        try {
            CompletableFuture<RuntimeException> first = new CompletableFuture<>();
            CompletableFuture<RuntimeException> second = new CompletableFuture<>();
            writer.passStarted(0);
            writer.persist(storage.group(0), ready(1), (r, failure, nanos) -> first.complete(failure));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!writer.awaitingPasses()) { // the writer took the first Ready and waits for the pass
                assertTrue(System.nanoTime() < deadline, "the writer never waited for the pass under way");
                Thread.onSpinWait();
            }
            writer.persist(storage.group(1), ready(1), (r, failure, nanos) -> second.complete(failure));
            assertTrue(!first.isDone(), "a Ready completed while its pass was still under way");
            writer.passEnded(0);
            assertNull(first.get(30, TimeUnit.SECONDS));
            assertNull(second.get(30, TimeUnit.SECONDS));
            assertEquals(1, storage.fsyncs(), "one fsync for the two groups' Readys of the pass");
        } finally {
            writer.close();
            storage.group(0).close();
            storage.group(1).close();
            storage.close();
        }
    }
}
