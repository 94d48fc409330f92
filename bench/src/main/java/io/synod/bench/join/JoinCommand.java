package io.synod.bench.join;

import io.synod.bench.BenchCli;
import io.synod.bench.report.CsvTable;
import io.synod.server.cli.DemoCommand;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code synod bench join}: how fast a new replica catches up and becomes a voter (PaxStore §5.5 measures a new
 * follower recovering 10,000 records of 512 B in 8 s and of 8 KiB in 15 s). Per row ({@link JoinRow}): a fresh 3-node
 * cluster of real processes, the records written and acknowledged, a follower's disk wiped and the node started again;
 * the time from that start to the new replica caught up (applied through the leader's commit point at the request)
 * and to promoted to voter, with the full log kept (the learner gets the log) and with it compacted (it gets a RocksDB
 * checkpoint). Prints the table beside PaxStore's figures and the goals, with the machine's load average; writes
 * join.csv under --out.
 */
@Command(name = "join", mixinStandardHelpOptions = true, usageHelpWidth = BenchCli.HELP_WIDTH,
        description = {"A new replica joins: time to caught up and to voter after a follower's data.dir is wiped, on a",
                "3-node cluster of real processes (fsync on), beside PaxStore's 8 s / 15 s; join.csv under --out."})
public final class JoinCommand implements Callable<Integer> {
    /** PaxStore §5.5: a new follower recovers 10,000 records of 512 B in 8 s and of 8 KiB in 15 s. */
    static final int PAXSTORE_RECORDS = 10_000;
    /** This project's goals for the same: the new replica a voter within 2 s (512 B) and 5 s (8 KiB). */
    static final double GOAL_512 = 2.0;
    static final double GOAL_8K = 5.0;
    static final double PAXSTORE_512 = 8.0;
    static final double PAXSTORE_8K = 15.0;

    @Spec
    CommandSpec spec;

    @Option(names = "--records", defaultValue = "10000",
            description = "records written before the new replica joins (default ${DEFAULT-VALUE}, PaxStore's count)")
    int records;

    @Option(names = "--sizes", split = ",", paramLabel = "BYTES", defaultValue = "512,8192",
            description = "value sizes in bytes, one pair of rows each (default ${DEFAULT-VALUE}, PaxStore's)")
    List<Integer> sizes;

    @Option(names = "--logs", split = ",", paramLabel = "KIND", defaultValue = "full,compacted",
            description = "which logs to measure: full (the leader keeps every slot, so the learner gets the log), "
                    + "compacted (a snapshot every records/5 slots, so it gets a checkpoint) (default ${DEFAULT-VALUE})")
    List<String> logs;

    @Option(names = "--quick", description = "2,000 records per row instead of --records (about a minute a row)")
    boolean quick;

    @Option(names = "--timeout-s", defaultValue = "300",
            description = "give up on a row when the new replica is not a voter after this many seconds (default ${DEFAULT-VALUE})")
    int timeoutSeconds;

    @Option(names = "--out", paramLabel = "DIR", description = "output directory (default bench-results/join-<UTC timestamp>)")
    Path outDir;

    private PrintWriter out;
    private long startNanos;

    @Override
    public Integer call() throws Exception {
        int count = quick ? 2_000 : records;
        if (count < 10 || count > 1_000_000) {
            throw new ParameterException(spec.commandLine(), "--records must be 10..1000000, got " + count);
        }
        for (int size : sizes) {
            if (size < 1 || size > (1 << 20)) {
                throw new ParameterException(spec.commandLine(), "--sizes must each be 1..1048576 bytes, got " + size);
            }
        }
        for (String log : logs) {
            if (!log.equals("full") && !log.equals("compacted")) {
                throw new ParameterException(spec.commandLine(), "--logs takes full and/or compacted, got '" + log + "'");
            }
        }
        if (timeoutSeconds < 10) {
            throw new ParameterException(spec.commandLine(), "--timeout-s must be at least 10, got " + timeoutSeconds);
        }
        Path dir = outDir != null ? outDir : Path.of("bench-results", "join-"
                + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        BenchCli.requireWritableDirectory(spec, "--out", dir);
        out = spec.commandLine().getOut();
        startNanos = System.nanoTime();
        progress("bench join: %d records per row, sizes %s, logs %s; load average %s", count, sizes, logs, loadAverage());
        List<JoinRow.Result> results = new ArrayList<>();
        List<String> loads = new ArrayList<>();
        for (int size : sizes) {
            for (String log : logs) {
                Path work = dir.resolve("work").resolve(size + "-" + log);
                DemoCommand.deleteTree(work);
                JoinRow.Result r = JoinRow.measure(work, count, size, log.equals("compacted"), timeoutSeconds, out,
                        line -> progress("%s", line));
                results.add(r);
                loads.add(loadAverage());
                keepLogs(work, dir.resolve("logs").resolve(size + "-" + log));
                DemoCommand.deleteTree(work);
            }
        }
        report(dir, results, loads);
        return 0;
    }

    private void report(Path dir, List<JoinRow.Result> results, List<String> loads) throws IOException {
        CsvTable csv = new CsvTable("records", "value_bytes", "log", "learner_got", "request_commit_slot", "write_s",
                "start_to_request_s", "storage_opened_s", "peer_port_s", "node_up_s", "learner_added_s", "first_applied_s", "caught_up_s",
                "promoted_s", "paxstore_s",
                "goal_s", "goal_met", "load_average_1_5_15");
        out.println();
        out.printf("%-7s %-6s %-9s %-10s %9s %7s %7s %7s %8s %9s %9s %8s %6s %6s %s%n", "records", "value", "log",
                "got", "start->req", "opened", "peer up", "learner", "1st data", "caught up", "promoted", "PaxStore",
                "goal", "met", "load avg");
        for (int i = 0; i < results.size(); i++) {
            JoinRow.Result r = results.get(i);
            double paxStore = r.valueBytes() == 512 ? PAXSTORE_512 : r.valueBytes() == 8192 ? PAXSTORE_8K : Double.NaN;
            double goal = r.valueBytes() == 512 ? GOAL_512 : r.valueBytes() == 8192 ? GOAL_8K : Double.NaN;
            String met = Double.isNaN(goal) || r.records() != PAXSTORE_RECORDS ? "n/a"
                    : r.promotedSeconds() <= goal ? "yes" : "MISSED";
            String log = r.compacted() ? "compacted" : "full";
            out.printf("%-7d %-6s %-9s %-10s %9.2f %7.2f %7.2f %7.2f %8.2f %9.2f %9.2f %8s %6s %6s %s%n", r.records(),
                    sizeName(r.valueBytes()), log, r.path(), r.requestSeconds(), r.split().opened(),
                    r.split().listening(), r.learnerSeconds(),
                    r.split().firstApplied(), r.caughtUpSeconds(), r.promotedSeconds(), seconds(paxStore), seconds(goal),
                    met, loads.get(i));
            csv.add(r.records(), r.valueBytes(), log, r.path(), r.requestCommitSlot(), fmt(r.loadSeconds()),
                    fmt(r.requestSeconds()), fmt(r.split().opened()), fmt(r.split().listening()), fmt(r.upSeconds()), fmt(r.learnerSeconds()),
                    fmt(r.split().firstApplied()), fmt(r.caughtUpSeconds()), fmt(r.promotedSeconds()),
                    Double.isNaN(paxStore) ? "" : fmt(paxStore), Double.isNaN(goal) ? "" : fmt(goal), met, loads.get(i));
        }
        Path file = dir.resolve("join.csv");
        csv.write(file);
        out.println();
        out.println("'start->req': seconds from the wiped node's process start (JVM, ZooKeeper session, RocksDB) to the");
        out.println("join request, its new replica id recorded in ZooKeeper. From the request: seconds to the new node's");
        out.println("group storage opened and its peer port open ('peer up'; its log lines), to the leader listing the");
        out.println("new replica as a learner, as applied above 0 ('1st data': its first batch or the checkpoint in),");
        out.println("as applied through the leader's commit slot at the request ('caught up'), and as a voter");
        out.println("('promoted'). 'got': the log, or a checkpoint (the new replica installed a snapshot). PaxStore");
        out.println("(§5.5): a new follower recovers");
        out.printf("%,d records of 512 B in 8 s and of 8 KiB in 15 s; goals here: a voter within 2 s and 5 s ('met').%n",
                PAXSTORE_RECORDS);
        out.printf("wrote %s (%.1f s in all)%n", file, (System.nanoTime() - startNanos) / 1e9);
        out.flush();
    }

    /** Keeps each node's server.log of a row (the leader's re-join and catch-up lines tell what happened). */
    private static void keepLogs(Path work, Path into) throws IOException {
        Files.createDirectories(into);
        for (int n = 0; n < JoinRow.NODES; n++) {
            Path log = work.resolve("node-" + n).resolve("server.log");
            if (Files.exists(log)) {
                Files.copy(log, into.resolve("node-" + n + ".log"), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    static String sizeName(int size) {
        return size >= 1024 && size % 1024 == 0 ? (size / 1024) + " KiB" : size + " B";
    }

    private static String seconds(double v) {
        return Double.isNaN(v) ? "n/a" : String.format("%.0f s", v);
    }

    private static String fmt(double v) {
        return String.format("%.3f", v);
    }

    /** The 1, 5 and 15 minute load averages ({@code /proc/loadavg}; the JVM's 1-minute figure elsewhere). */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return String.format("%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }

    private void progress(String format, Object... args) {
        out.printf("[%6.1fs] %s%n", (System.nanoTime() - startNanos) / 1e9, String.format(format, args));
        out.flush();
    }
}
