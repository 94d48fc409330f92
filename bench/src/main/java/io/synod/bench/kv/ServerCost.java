package io.synod.bench.kv;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one system spent: the CPU time of its server processes (Linux {@code /proc/<pid>/stat}, summed; user and
 * system apart), their threads' CPU and context switches by role ({@link ThreadCosts}),
 * the bytes that reached the block device holding its data ({@code /sys/dev/block/<dev>/stat}), and for
 * Synod the fsyncs its nodes report ({@code synod_log_fsyncs_total}, the node log's fsyncs, on each node's
 * {@code /metrics}; a node without it counts one per group persist, {@code synod_fsync_latency_seconds_count}). Cost per acknowledged write is far less sensitive to a busy machine than operations
 * per second: a neighbour's load stretches the time a write takes, not the CPU or the bytes it needs.
 *
 * <p>Disk bytes come from the device, not from {@code /proc/<pid>/io}: on this project's ext4 VMs the
 * per-process {@code write_bytes} charges about 2 MiB for every {@code fdatasync} of a small append to a
 * preallocated file (2,000 such 1,100-byte appends were charged 4.2 GB while the device received a few
 * MB), so it reports gigabytes per second for a log like Synod's. The device counter sees what the
 * disk really received, file system journal included, but also every other writer on that device: run
 * the benchmark on a quiet machine.
 */
final class ServerCost {
    /**
     * {@code /proc/<pid>/stat} reports CPU time in clock ticks of {@code sysconf(_SC_CLK_TCK)}, which the
     * Linux ABI fixes at 100 per second (USER_HZ; proc(5)).
     */
    static final long TICKS_PER_SECOND = 100;

    /**
     * Counters at one moment; {@code fsyncs} is -1 where the system does not report them (ZooKeeper),
     * {@code diskWriteBytes} -1 where the data directory is on no block device (tmpfs, overlay).
     */
    record Sample(long cpuTicks, long systemTicks, long diskWriteBytes, long fsyncs, long peerFrames, long peerMessages,
            Map<String, Long> sentByKind, ThreadCosts threads) {
        /** What was spent from {@code earlier} to this sample (the threads' counters stay those of this sample). */
        Sample minus(Sample earlier) {
            return new Sample(cpuTicks - earlier.cpuTicks, systemTicks - earlier.systemTicks,
                    diskWriteBytes < 0 || earlier.diskWriteBytes < 0 ? -1 : diskWriteBytes - earlier.diskWriteBytes,
                    fsyncs < 0 || earlier.fsyncs < 0 ? -1 : fsyncs - earlier.fsyncs,
                    peerFrames < 0 || earlier.peerFrames < 0 ? -1 : peerFrames - earlier.peerFrames,
                    peerMessages < 0 || earlier.peerMessages < 0 ? -1 : peerMessages - earlier.peerMessages,
                    kindsSince(earlier), threads);
        }

        /** Messages by kind sent since {@code earlier} (kinds of this sample; empty for a system that does not count them). */
        private Map<String, Long> kindsSince(Sample earlier) {
            Map<String, Long> spent = new TreeMap<>();
            sentByKind.forEach((kind, n) -> spent.put(kind, n - earlier.sentByKind.getOrDefault(kind, 0L)));
            return spent;
        }

        /** CPU and context switches per thread role from {@code earlier} to this sample. */
        ThreadCosts.Spent threadsSince(Sample earlier) {
            return threads.minus(earlier.threads);
        }

        double cpuSeconds() {
            return cpuTicks / (double) TICKS_PER_SECOND;
        }
    }

    private final List<Long> pids;
    private final Path deviceStat;
    private final List<URI> metrics;
    private final HttpClient http;

    /**
     * @param pids the server processes (not the load generator)
     * @param dataDir where the system keeps its data (finds the block device to count)
     * @param metricsPorts Synod nodes' metrics ports on 127.0.0.1, empty for a system without them
     */
    ServerCost(List<Long> pids, Path dataDir, List<Integer> metricsPorts) throws IOException {
        this.pids = List.copyOf(pids);
        this.deviceStat = deviceStatFile(dataDir);
        this.metrics = metricsPorts.stream().map(p -> URI.create("http://127.0.0.1:" + p + "/metrics")).toList();
        this.http = metrics.isEmpty() ? null : HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    Sample sample() throws IOException, InterruptedException {
        long ticks = 0;
        long systemTicks = 0;
        for (long pid : pids) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                ticks += cpuTicks(stat);
                systemTicks += ThreadCosts.field(stat, 15);
            } catch (NoSuchFileException gone) {
                throw new IOException("server process " + pid + " is gone: its cost cannot be measured");
            }
        }
        long written = deviceStat == null ? -1 : sectorsWritten(Files.readString(deviceStat)) * SECTOR_BYTES;
        long fsyncs = -1;
        long peerFrames = -1;
        long peerMessages = -1;
        Map<String, Long> sentByKind = Map.of();
        if (http != null) {
            fsyncs = 0;
            boolean framesKnown = true;
            long frameSum = 0;
            long messageSum = 0;
            sentByKind = new TreeMap<>();
            for (URI uri : metrics) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                if (r.statusCode() != 200) {
                    throw new IOException(uri + " answered HTTP " + r.statusCode());
                }
                fsyncs += fsyncs(r.body());
                long frames = peerFrames(r.body());
                framesKnown &= frames >= 0;
                frameSum += frames;
                messageSum += sumSeries(r.body(), "synod_peer_messages_total");
                sumByLabel(r.body(), "synod_group_peer_sent_total", "kind", sentByKind);
            }
            peerFrames = framesKnown ? frameSum : -1;
            peerMessages = framesKnown ? messageSum : -1;
        }
        return new Sample(ticks, systemTicks, written, fsyncs, peerFrames, peerMessages, sentByKind,
                ThreadCosts.snapshot(pids));
    }

    /** utime + stime (fields 14 and 15, counted after the parenthesised command name, which may hold spaces). */
    static long cpuTicks(String stat) {
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + stat);
        }
        String[] fields = stat.substring(close + 2).trim().split(" ");
        // fields[0] is field 3 (state); utime is field 14, stime field 15.
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    /** The block layer counts in 512-byte sectors whatever the device's own sector size (Documentation/block/stat). */
    static final long SECTOR_BYTES = 512;

    /** Field 7 of a block device's stat file: sectors written. */
    static long sectorsWritten(String stat) {
        String[] fields = stat.trim().split("\\s+");
        if (fields.length < 7) {
            throw new IllegalArgumentException("not a block device stat line: " + stat);
        }
        return Long.parseLong(fields[6]);
    }

    /**
     * The stat file of the block device whose file system holds {@code dir} (the mount with the longest
     * mount point that contains it, from {@code /proc/self/mountinfo}), or null if that is no block device.
     */
    static Path deviceStatFile(Path dir) throws IOException {
        Path real = dir.toAbsolutePath().normalize();
        String bestMount = null;
        String bestDevice = null;
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            String[] f = line.split(" ");
            String mountPoint = f[4].replace("\\040", " ");
            if (real.startsWith(mountPoint) && (bestMount == null || mountPoint.length() > bestMount.length())) {
                bestMount = mountPoint;
                bestDevice = f[2];
            }
        }
        if (bestDevice == null) {
            return null;
        }
        Path stat = Path.of("/sys/dev/block", bestDevice, "stat");
        return Files.isReadable(stat) ? stat : null;
    }

    /**
     * A node's fsyncs: its node log's counter (one fsync may serve every group), or where a node has none
     * (the previous layout, a log per group) one per group persist.
     */
    static long fsyncs(String exposition) {
        return exposition.contains("\nsynod_log_fsyncs_total") ? sumSeries(exposition, "synod_log_fsyncs_total")
                : sumSeries(exposition, "synod_fsync_latency_seconds_count");
    }

    /**
     * The peer frames a node sent ({@code synod_peer_frames_total}, all peers; one frame carries every group's
     * messages of a worker pass), or -1 for a node that does not count them (a build before the batching).
     */
    static long peerFrames(String exposition) {
        return exposition.contains("\nsynod_peer_frames_total") ? sumSeries(exposition, "synod_peer_frames_total") : -1;
    }

    /**
     * Adds to {@code sums} each series of {@code name}, keyed by its {@code label}'s value (a series without the label
     * is skipped): {@code synod_group_peer_sent_total} by kind, summed over groups, peers and nodes.
     */
    static void sumByLabel(String exposition, String name, String label, Map<String, Long> sums) {
        String key = label + "=\"";
        for (String line : exposition.split("\n")) {
            int at = line.indexOf(key);
            if (!line.startsWith(name + "{") || at < 0) {
                continue;
            }
            int from = at + key.length();
            String value = line.substring(from, line.indexOf('"', from));
            sums.merge(value, Math.round(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))), Long::sum);
        }
    }

    static long sumSeries(String exposition, String name) {
        double sum = 0;
        for (String line : exposition.split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return Math.round(sum);
    }
}
