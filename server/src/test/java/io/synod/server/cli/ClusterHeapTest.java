package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.synod.server.config.SnapshotSettings;
import java.io.StringReader;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * {@code synod cluster start} runs its servers with small heaps ({@link ClusterCommand#DEFAULT_JVM_OPTS}): with many
 * groups the default log bounds (32 MiB between snapshots and 32 MiB kept, per group) would not fit them, and every node
 * warned at start. The command reads the heap from the JVM options and gives each group's log an equal share.
 */
class ClusterHeapTest {
    @Test
    void theHeapIsReadFromTheJvmOptionsTheLastXmxWinning() {
        assertEquals(384L << 20, ClusterCommand.maxHeapBytes(ClusterCommand.DEFAULT_JVM_OPTS));
        assertEquals(2L << 30, ClusterCommand.maxHeapBytes("-Xmx512m -XX:+UseSerialGC -Xmx2G"));
        assertEquals(65536L << 10, ClusterCommand.maxHeapBytes("-Xmx65536k"));
        assertEquals(Long.MAX_VALUE, ClusterCommand.maxHeapBytes("-XX:+UseSerialGC -XX:MaxRAMPercentage=50"));
        assertEquals(Long.MAX_VALUE, ClusterCommand.maxHeapBytes("-Xmx"), "no size: the JVM's default");
    }

    @Test
    void manyGroupsGetLogBoundsThatFitTheHeapAndNoWarning() throws Exception {
        long heap = ClusterCommand.maxHeapBytes(ClusterCommand.DEFAULT_JVM_OPTS);
        SnapshotSettings defaults = new SnapshotSettings(10_000, 1_000, 32L << 20, 32L << 20);
        assertEquals("", SnapshotSettings.fittedKeys(4, heap), "4 groups fit the defaults");
        assertNotNull(defaults.heapWarning(8, heap), "8 groups at the defaults would not");
        String keys = SnapshotSettings.fittedKeys(8, heap);
        Properties p = new Properties();
        p.load(new StringReader(keys));
        long every = Long.parseLong(p.getProperty("snapshot.every.bytes"));
        long retain = Long.parseLong(p.getProperty("log.retain.bytes"));
        assertEquals(2 * heap / 3 / 8 / 2, every, keys);
        assertEquals(every, retain, keys);
        assertNull(new SnapshotSettings(10_000, 1_000, every, retain).heapWarning(8, 371L << 20),
                "no warning at the 371 MiB a JVM started with -Xmx384m reports: " + keys);
    }
}
