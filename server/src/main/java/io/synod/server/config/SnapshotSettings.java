package io.synod.server.config;

import io.synod.core.paxos.ReplicaConfig;
import java.util.Map;
import java.util.Properties;

/**
 * When a group snapshots its state and how much log it keeps below a snapshot. Each group's log is held in
 * memory from one snapshot to the next (the acceptor serves catch-up and phase 1 from it), so these also bound the
 * heap a node needs: a snapshot is taken every {@code everySlots} applied slots or every {@code everyBytes} bytes
 * of applied entries, whichever comes first, and at most {@code retainSlots} slots and {@code retainBytes} bytes
 * stay below it for peers that are a little behind (a peer further behind gets the snapshot). A slot count alone
 * let 600 values of 512 KiB fill a 384 MiB heap before the first snapshot.
 */
public record SnapshotSettings(int everySlots, int retainSlots, long everyBytes, long retainBytes) {
    /** The smallest {@code snapshot.every.bytes} accepted. */
    static final long MIN_EVERY_BYTES = 4096;

    static void addKeys(Map<String, String[]> k) {
        k.put("snapshot.every.slots", new String[] {"10000", "take a snapshot after this many applied slots"});
        k.put("snapshot.every.bytes", new String[] {Long.toString(ReplicaConfig.DEFAULT_SNAPSHOT_EVERY_BYTES),
                "also take a snapshot after this many bytes of applied entries (the log between snapshots is held in "
                        + "memory: about groups x (snapshot.every.bytes + log.retain.bytes) of heap)"});
        k.put("log.retain.slots", new String[] {"1000", "applied slots kept below a snapshot for catch-up"});
        k.put("log.retain.bytes", new String[] {Long.toString(ReplicaConfig.DEFAULT_LOG_RETAIN_BYTES),
                "at most this many bytes of entries kept below a snapshot for catch-up"});
    }

    static SnapshotSettings parse(Properties p) throws ConfigException {
        return new SnapshotSettings(ServerConfig.integer(p, "snapshot.every.slots", 1, Integer.MAX_VALUE),
                ServerConfig.integer(p, "log.retain.slots", 0, Integer.MAX_VALUE),
                ServerConfig.longValue(p, "snapshot.every.bytes", MIN_EVERY_BYTES, 1L << 40),
                ServerConfig.longValue(p, "log.retain.bytes", 0, 1L << 40));
    }

    String toProperties() {
        return "snapshot.every.slots=" + everySlots + "\nsnapshot.every.bytes=" + everyBytes + "\nlog.retain.slots="
                + retainSlots + "\nlog.retain.bytes=" + retainBytes + "\n";
    }

    /** {@code config} with these bounds. */
    public ReplicaConfig applyTo(ReplicaConfig config) {
        return config.withSnapshotEverySlots(everySlots, retainSlots).withSnapshotEveryBytes(everyBytes, retainBytes);
    }

    /**
     * Properties lines that bound each of {@code groups} logs to an equal share of two thirds of a heap of
     * {@code maxHeapBytes} (half between snapshots, half kept below), when the defaults would not fit it; empty when
     * they do. Two thirds, below the three quarters {@link #heapWarning} allows, because a JVM reports a little less
     * than its {@code -Xmx} (371 of 384 MiB with Serial GC). For processes given a small heap, such as
     * {@code synod cluster start}'s.
     */
    public static String fittedKeys(int groups, long maxHeapBytes) {
        if (fits(groups * (ReplicaConfig.DEFAULT_SNAPSHOT_EVERY_BYTES + ReplicaConfig.DEFAULT_LOG_RETAIN_BYTES), maxHeapBytes)) {
            return "";
        }
        long each = Math.max(MIN_EVERY_BYTES, 2 * maxHeapBytes / 3 / groups / 2);
        return "snapshot.every.bytes=" + each + "\nlog.retain.bytes=" + each + "\n";
    }

    /**
     * A one-line warning when {@code groups} logs at their bounds would take more than three quarters of a heap of
     * {@code maxHeapBytes} (the rest is for in-flight values, batches and caches); null when they fit.
     */
    public String heapWarning(int groups, long maxHeapBytes) {
        long logs = groups * (everyBytes + retainBytes);
        if (fits(logs, maxHeapBytes)) {
            return null;
        }
        return "the logs of " + groups + " groups may hold " + (logs >> 20) + " MiB between snapshots (groups x "
                + "(snapshot.every.bytes + log.retain.bytes)), more than three quarters of the " + (maxHeapBytes >> 20)
                + " MiB heap: with large values raise -Xmx or lower snapshot.every.bytes and log.retain.bytes";
    }

    /** Whether logs of {@code logBytes} in all take at most three quarters of a heap of {@code maxHeapBytes} (unknown: yes). */
    private static boolean fits(long logBytes, long maxHeapBytes) {
        return maxHeapBytes == Long.MAX_VALUE || 4 * logBytes <= 3 * maxHeapBytes;
    }
}
