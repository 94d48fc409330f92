package io.synod.sim;

import io.synod.core.util.Check;

/**
 * The bandwidth of the simulated replica links: every directed link (from, to) sends at
 * {@code bitsPerSecond}, so a message of B bytes occupies it for B × 8 / rate (its serialization
 * delay), and the messages a node puts on one link leave one after another, in the order they were
 * sent (a FIFO per directed link, as a NIC queue or a TCP connection): a message sent while the
 * link is still busy waits until the messages before it have left. The propagation latency (and
 * its jitter, loss, duplication and partitions) is added on top by the network model; this class
 * only says when the last bit of a message has left the sender.
 *
 * <p>Used to measure throughput on bandwidth-limited links, as RS-Paxos (Mu et al., HPDC 2014, §5,
 * Fig. 5/6: 500 Mbit/s links) does, and optionally in the fault simulator
 * ({@link SimConfig#linkBitsPerSecond()}). Off unless asked for: without it the simulator draws
 * and schedules exactly as before. Pure bookkeeping in simulated time: no clock, no randomness.
 */
public final class LinkBandwidth {
    /** Upper bound of the rate: 1 Tbit/s (serialization delays below a nanosecond make no sense here). */
    public static final long MAX_BITS_PER_SECOND = 1_000_000_000_000L;

    private final int nodes;
    private final long bitsPerSecond;
    /** Simulated instant at which each directed link has sent everything queued on it. */
    private final long[][] busyUntilNanos;
    private final long[][] bytesSent;

    public LinkBandwidth(int nodes, long bitsPerSecond) {
        Check.argument(nodes >= 1, "nodes must be >= 1, got %d", nodes);
        Check.argument(bitsPerSecond >= 1 && bitsPerSecond <= MAX_BITS_PER_SECOND,
                "link bandwidth must be 1..%d bit/s, got %d", MAX_BITS_PER_SECOND, bitsPerSecond);
        this.nodes = nodes;
        this.bitsPerSecond = bitsPerSecond;
        this.busyUntilNanos = new long[nodes][nodes];
        this.bytesSent = new long[nodes][nodes];
    }

    public long bitsPerSecond() {
        return bitsPerSecond;
    }

    /** How long the link needs to put {@code bytes} bytes on the wire, rounded up to a nanosecond. */
    public long serializationNanos(long bytes) {
        Check.argument(bytes >= 0 && bytes <= Integer.MAX_VALUE * 8L, "message size must be 0..%d bytes, got %d",
                Integer.MAX_VALUE * 8L, bytes);
        // bytes * 8e9 stays below 2^63 for messages up to 16 GiB.
        long bitNanos = bytes * 8L * 1_000_000_000L;
        return (bitNanos + bitsPerSecond - 1) / bitsPerSecond;
    }

    /**
     * A message of {@code bytes} bytes is handed to link (from, to) at {@code nowNanos}: it queues
     * behind what the link still has to send; returns the delay from now until its last bit has left.
     */
    public long send(int from, int to, long nowNanos, long bytes) {
        Check.argument(from >= 0 && from < nodes && to >= 0 && to < nodes, "link %d->%d outside a group of %d", from, to, nodes);
        long start = Math.max(nowNanos, busyUntilNanos[from][to]);
        long done = start + serializationNanos(bytes);
        busyUntilNanos[from][to] = done;
        bytesSent[from][to] += bytes;
        return done - nowNanos;
    }

    /** Bytes handed to link (from, to) so far. */
    public long bytesSent(int from, int to) {
        return bytesSent[from][to];
    }

    /** Bytes handed to every link so far. */
    public long totalBytesSent() {
        long total = 0;
        for (long[] row : bytesSent) {
            for (long bytes : row) {
                total += bytes;
            }
        }
        return total;
    }

    /** The most bytes any one directed link carried. */
    public long busiestLinkBytes() {
        long max = 0;
        for (long[] row : bytesSent) {
            for (long bytes : row) {
                max = Math.max(max, bytes);
            }
        }
        return max;
    }
}
