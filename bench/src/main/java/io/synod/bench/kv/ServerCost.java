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

/**
 * What the server processes of one system spent: CPU time and bytes written to disk (Linux
 * {@code /proc/<pid>/stat} and {@code /proc/<pid>/io}, summed over every server process), and for Synod
 * the fsyncs its nodes report ({@code synod_fsync_latency_seconds_count} on each node's {@code /metrics}).
 * Cost per acknowledged write is far less sensitive to a busy machine than operations per second: a
 * neighbour's load stretches the time a write takes, not the CPU or the bytes it needs.
 */
final class ServerCost {
    /**
     * {@code /proc/<pid>/stat} reports CPU time in clock ticks of {@code sysconf(_SC_CLK_TCK)}, which the
     * Linux ABI fixes at 100 per second (USER_HZ; proc(5)).
     */
    static final long TICKS_PER_SECOND = 100;

    /** Counters at one moment; {@code fsyncs} is -1 where the system does not report them (ZooKeeper). */
    record Sample(long cpuTicks, long diskWriteBytes, long fsyncs) {
        /** What was spent from {@code earlier} to this sample. */
        Sample minus(Sample earlier) {
            return new Sample(cpuTicks - earlier.cpuTicks, diskWriteBytes - earlier.diskWriteBytes,
                    fsyncs < 0 || earlier.fsyncs < 0 ? -1 : fsyncs - earlier.fsyncs);
        }

        double cpuSeconds() {
            return cpuTicks / (double) TICKS_PER_SECOND;
        }
    }

    private final List<Long> pids;
    private final List<URI> metrics;
    private final HttpClient http;

    /**
     * @param pids the server processes (not the load generator)
     * @param metricsPorts Synod nodes' metrics ports on 127.0.0.1, empty for a system without them
     */
    ServerCost(List<Long> pids, List<Integer> metricsPorts) {
        this.pids = List.copyOf(pids);
        this.metrics = metricsPorts.stream().map(p -> URI.create("http://127.0.0.1:" + p + "/metrics")).toList();
        this.http = metrics.isEmpty() ? null : HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    Sample sample() throws IOException, InterruptedException {
        long ticks = 0;
        long written = 0;
        for (long pid : pids) {
            Path proc = Path.of("/proc", Long.toString(pid));
            try {
                ticks += cpuTicks(Files.readString(proc.resolve("stat")));
                written += writeBytes(Files.readString(proc.resolve("io")));
            } catch (NoSuchFileException gone) {
                throw new IOException("server process " + pid + " is gone: its cost cannot be measured");
            }
        }
        long fsyncs = -1;
        if (http != null) {
            fsyncs = 0;
            for (URI uri : metrics) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                if (r.statusCode() != 200) {
                    throw new IOException(uri + " answered HTTP " + r.statusCode());
                }
                fsyncs += sumSeries(r.body(), "synod_fsync_latency_seconds_count");
            }
        }
        return new Sample(ticks, written, fsyncs);
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

    /** {@code write_bytes}: bytes this process caused to be sent to the storage layer. */
    static long writeBytes(String io) {
        for (String line : io.split("\n")) {
            if (line.startsWith("write_bytes:")) {
                return Long.parseLong(line.substring("write_bytes:".length()).trim());
            }
        }
        throw new IllegalArgumentException("no write_bytes in /proc/<pid>/io");
    }

    /** Sum of every sample of {@code name} (all label sets) in a Prometheus text exposition. */
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
