package io.synod.bench.join;

import io.synod.bench.kv.ProcessCluster;
import io.synod.client.MembershipResult;
import io.synod.client.SynodClient;
import io.synod.protocol.ClientFrame;
import io.synod.server.cli.ClusterCommand;
import io.synod.server.cli.ClusterFile;
import io.synod.server.cli.DemoCommand;
import io.synod.server.client.NodeClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One row of {@code synod bench join}: a fresh 3-node cluster of real processes (fsync on, one group), {@code records}
 * values of {@code valueBytes} written and acknowledged, then a follower killed, its data directory deleted and the
 * node started again: the wiped-node re-join (docs/membership.md, "A wiped node re-joins") makes it a new replica that
 * the leader adds as a learner, catches up and promotes. Times are taken from events the leader reports: its
 * membership status (SDK {@code membership} STATUS, polled every {@value #POLL_MILLIS} ms), which lists the learner, the
 * slot each member applied as the leader last heard, and the voters.
 */
final class JoinRow {
    static final int NODES = 3;
    /** ZooKeeper session timeout of the servers; also how long one waits to reach ZooKeeper at start. */
    private static final int SESSION_TIMEOUT_MILLIS = 10_000;
    /** How often the leader's membership status is asked for while the new replica joins. */
    static final int POLL_MILLIS = 10;
    /** Writes in flight while the records are loaded. */
    private static final int WINDOW = 64;
    private static final int WRITE_ATTEMPTS = 5;

    /**
     * What one row measured. {@code requestSeconds}: from the wiped node's process start to the join request (its new
     * replica id recorded in ZooKeeper); the other times are from the request to the client port open, to the leader
     * listing the new replica as a learner, as applied through {@code requestCommitSlot}, and as a voter.
     */
    record Result(int records, int valueBytes, boolean compacted, String path, long requestCommitSlot,
            double loadSeconds, double requestSeconds, double upSeconds, double learnerSeconds, double caughtUpSeconds,
            double promotedSeconds, long installedSnapshotSlot, Split split) {}

    /**
     * Where the time from the request to caught up went, in seconds from the request: the new node's group storage
     * opened and its peer port open (its log lines; before that it can receive nothing), and the leader first
     * reporting the new replica applied above 0 (the first catch-up batch, or the checkpoint, written and applied).
     * NaN when not seen.
     */
    record Split(double opened, double listening, double firstApplied) {}

    private JoinRow() {}

    /**
     * Measures one row in {@code clusterDir} (made by {@code synod cluster start}). {@code compacted}: the leader takes
     * snapshots often enough that the records are compacted out of its log (the new replica gets a checkpoint);
     * otherwise it keeps every slot in its log (the new replica gets the log).
     */
    static Result measure(Path clusterDir, int records, int valueBytes, boolean compacted, int timeoutSeconds,
            PrintWriter out, Consumer<String> progress) throws Exception {
        // Without compaction no snapshot is taken during the row (by slots or by bytes); with it, one every records/5 slots and only 100
        // slots kept below it, so the log no longer holds the first records when the new replica asks.
        List<String> sets = compacted
                ? List.of("snapshot.every.slots=" + Math.max(10, records / 5), "log.retain.slots=100")
                : List.of("snapshot.every.slots=" + (records * 10 + 1000), // nor by bytes: the log holds every record
                        "snapshot.every.bytes=" + (4L * records * (valueBytes + 256) + (32L << 20)));
        String label = records + " x " + JoinCommand.sizeName(valueBytes) + (compacted ? ", compacted log" : ", full log");
        try (ProcessCluster cluster = ProcessCluster.start(clusterDir, NODES, 1, SESSION_TIMEOUT_MILLIS, sets, out, false);
             SynodClient client = SynodClient.builder().servers(new ArrayList<>(cluster.clientAddresses().values()))
                     .timeout(Duration.ofSeconds(30)).connectTimeout(Duration.ofSeconds(30)).maxInFlight(WINDOW)
                     .tls(cluster.clientTls()).build()) {
            awaitEveryNode(cluster, timeoutSeconds, progress);
            progress.accept(label + ": 3 server processes up (fsync on, mutual TLS, " + String.join(", ", sets)
                    + "); writing");
            long loadStart = System.nanoTime();
            write(client, records, valueBytes, n -> progress.accept(label + ": " + n + " of " + records + " acknowledged"));
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
            int leader = leaderNode(cluster, Set.of(0, 1, 2), timeoutSeconds);
            int wiped = leader == NODES - 1 ? NODES - 2 : NODES - 1; // a follower: its loss needs no election
            cluster.kill(wiped);
            Path data = clusterDir.resolve("node-" + wiped).resolve("data");
            DemoCommand.deleteTree(data); // rm -rf: the node lost its disk
            ClusterFile file = cluster.file();
            ClientFrame.GroupStatus atRequest = groupStatus(cluster, file, leader);
            if (atRequest == null) {
                throw new IOException("the leader, node " + leader + ", did not answer a status request");
            }
            long target = atRequest.commitSlot();
            progress.accept(String.format("%s: %d acknowledged in %.1f s; node %d killed and its data.dir deleted; "
                    + "leader node %d's commit slot %d; starting node %d again (the join request)", label, records,
                    loadSeconds, wiped, leader, target, wiped));
            long start = System.nanoTime();
            long startMillis = System.currentTimeMillis();
            ClusterCommand.restartNode(clusterDir, file, file.nodes().get(wiped), List.of());
            Timeline t = follow(cluster, client, file, wiped, target, start, timeoutSeconds);
            Path wipedLog = clusterDir.resolve("node-" + wiped).resolve("server.log");
            String logText = Files.readString(wipedLog, StandardCharsets.UTF_8);
            t.requested = logLineSeconds(logText, 0, startMillis, REQUEST_LINE);
            // The log holds the node's first run too: its start's lines are those after the request.
            int after = requestEnd(logText);
            double opened = logLineSeconds(logText, after, startMillis, openedLine(wiped));
            double listening = logLineSeconds(logText, after, startMillis, listeningLine(wiped));
            ClientFrame.GroupStatus joined = null;
            for (int attempt = 0; attempt < 10 && joined == null; attempt++) {
                joined = groupStatus(cluster, cluster.file(), wiped);
            }
            long installed = joined == null ? -1 : joined.snapshotSlot();
            String path = installed > 0 ? "checkpoint" : "log";
            double r = Double.isNaN(t.requested) ? 0 : t.requested; // no log line: counted from the process start
            Split split = new Split(opened - r, listening - r, t.firstApplied - r);
            progress.accept(String.format("%s: node %d's new replica id recorded %.2f s after its process started; "
                    + "from then: group storage opened %.2f s, peer port open %.2f s, client port open %.2f s, learner "
                    + "%.2f s, first state applied %.2f s, caught up %.2f s, promoted %.2f s; it got the %s%s", label,
                    wiped, t.requested, split.opened(), split.listening(), t.up - r, t.learner - r, split.firstApplied(),
                    t.caughtUp - r, t.promoted - r, path,
                    installed > 0 ? " (snapshot slot " + installed + ")" : ""));
            return new Result(records, valueBytes, compacted, path, target, loadSeconds, t.requested, t.up - r,
                    t.learner - r, t.caughtUp - r, t.promoted - r, installed, split);
        }
    }

    /** Seconds from the wiped node's process start to each event. */
    private static final class Timeline {
        /** When the node recorded its new replica id in ZooKeeper: the join request as the cluster sees it. */
        double requested = Double.NaN;
        double up = Double.NaN;
        double learner = Double.NaN;
        /** The leader first reports the new replica applied above 0: its first batch, or the checkpoint, is in. */
        double firstApplied = Double.NaN;
        double caughtUp = Double.NaN;
        double promoted = Double.NaN;

        /** The leader lists the new replica, as a voter or a learner, having applied {@code applied}, at {@code s}. */
        void saw(boolean voter, String applied, long target, double s) {
            if (Double.isNaN(learner)) {
                learner = s; // added as a learner (or first seen already promoted)
            }
            if (Double.isNaN(firstApplied) && (voter || !applied.equals("unknown") && Long.parseLong(applied) > 0)) {
                firstApplied = s;
            }
            if (Double.isNaN(caughtUp) && (voter || !applied.equals("unknown") && Long.parseLong(applied) >= target)) {
                caughtUp = s; // promoted only once caught up (rule M6): by then at the latest
            }
            if (voter && Double.isNaN(promoted)) {
                promoted = s;
            }
        }

        boolean complete() {
            return !Double.isNaN(up) && !Double.isNaN(caughtUp) && !Double.isNaN(promoted);
        }
    }

    /**
     * Polls until the wiped node's new replica is a voter and has applied through {@code target}, as the leader's
     * membership status reports it (the rule M6 decision is taken on the same figures). A replica promoted before this
     * poll saw it caught up was caught up by then: caught up takes the promotion's time at the latest.
     */
    private static Timeline follow(ProcessCluster cluster, SynodClient client, ClusterFile file, int wiped, long target,
            long start, int timeoutSeconds) throws Exception {
        Timeline t = new Timeline();
        // In a fresh cluster node w's ids are w (its first incarnation, wiped) and the new one (docs/membership.md).
        Pattern mine = Pattern.compile("(\\d+) \\(node " + wiped + ", incarnation [^,]+, applied (\\d+|unknown)");
        InetSocketAddress wipedAddress = cluster.clientAddresses().get(wiped);
        long deadline = start + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        String last = "";
        while (!t.complete()) {
            long now = System.nanoTime();
            double s = (now - start) / 1e9;
            if (now > deadline) {
                throw new IOException("node " + wiped + " did not join within " + timeoutSeconds + " s; last status: "
                        + last.replace('\n', ' '));
            }
            if (Double.isNaN(t.up) && listening(wipedAddress)) {
                t.up = s;
            }
            try {
                MembershipResult r = client.membership(0, ClientFrame.MEMBERSHIP_STATUS, -1).get(5, TimeUnit.SECONDS);
                last = r.membership();
                for (String line : last.split("\n")) {
                    Matcher m = mine.matcher(line);
                    while (m.find()) {
                        if (Integer.parseInt(m.group(1)) != wiped) {
                            t.saw(line.startsWith("voters:"), m.group(2), target, s);
                        }
                    }
                }
            } catch (ExecutionException | TimeoutException e) {
                last = "no answer: " + e.getMessage(); // a leader change: asked again
            }
            Thread.sleep(POLL_MILLIS);
        }
        return t;
    }

    /**
     * Seconds from {@code startMillis} (wall clock) to the first line of {@code serverLog} from index {@code from} on
     * that {@code line} matches (its group 1 the time of day); NaN when there is none (the bench's logback.xml logs the lines used at INFO).
     * The server logs the time of day to the millisecond in this machine's time zone, as this JVM reads it.
     */
    static double logLineSeconds(String serverLog, int from, long startMillis, Pattern line) {
        Matcher m = line.matcher(serverLog);
        if (from < 0 || !m.find(from)) {
            return Double.NaN;
        }
        ZonedDateTime startedAt = Instant.ofEpochMilli(startMillis).atZone(ZoneId.systemDefault());
        ZonedDateTime logged = startedAt.with(LocalTime.parse(m.group(1)));
        if (logged.isBefore(startedAt.minusHours(12))) {
            logged = logged.plusDays(1); // the run crossed midnight
        }
        return Duration.between(startedAt, logged).toMillis() / 1e3;
    }

    /**
     * The wiped node took its new replica id in group 0 ({@code Rejoin.newIncarnation}, logged right after ZooKeeper's
     * compare-and-set of the replica map: from then the leader can see it): the join request.
     */
    static final Pattern REQUEST_LINE =
            Pattern.compile("(?m)^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) INFO .*: group 0: replica id \\d+ for incarnation ");

    /** Where the first request line of {@code serverLog} ends, or -1. */
    static int requestEnd(String serverLog) {
        Matcher m = REQUEST_LINE.matcher(serverLog);
        return m.find() ? m.end() : -1;
    }

    /** Node {@code node} bound its peer port ({@code PeerNetwork}'s INFO line): from then peers can reach it. */
    static Pattern listeningLine(int node) {
        return Pattern.compile("(?m)^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) INFO .* - node " + node + ": peer port ");
    }

    /** Node {@code node} opened group 0's storage (its log and RocksDB; {@code SynodNode}'s INFO line). */
    static Pattern openedLine(int node) {
        return Pattern.compile("(?m)^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) INFO .* - node " + node + ": group 0 opened ");
    }

    private static boolean listening(InetSocketAddress address) {
        try (Socket s = new Socket()) {
            s.connect(address, 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Writes {@code records} keys of random {@code valueBytes}-byte values, {@value #WINDOW} in flight, each acknowledged. */
    static void write(SynodClient client, int records, int valueBytes, Consumer<Integer> every) throws Exception {
        Semaphore window = new Semaphore(WINDOW);
        AtomicInteger done = new AtomicInteger();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        SplittableRandom random = new SplittableRandom(valueBytes);
        int step = Math.max(1, records / 5);
        for (int i = 0; i < records && failed.get() == null; i++) {
            byte[] value = new byte[valueBytes];
            random.nextBytes(value);
            window.acquire();
            put(client, "join-" + i, value, WRITE_ATTEMPTS).whenComplete((r, e) -> {
                if (e != null) {
                    failed.compareAndSet(null, e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
                } else {
                    int n = done.incrementAndGet();
                    if (n % step == 0) {
                        every.accept(n);
                    }
                }
                window.release();
            });
        }
        window.acquire(WINDOW);
        if (failed.get() != null) {
            throw new IOException("a write was not acknowledged after " + WRITE_ATTEMPTS + " attempts: "
                    + failed.get().getMessage(), failed.get());
        }
    }

    /** A put retried on failure (the SDK keeps its client id and sequence, so a retry is never applied twice). */
    private static CompletableFuture<Object> put(SynodClient client, String key, byte[] value, int attempts) {
        return client.put(key, value).<Object>thenApply(r -> r).exceptionallyCompose(e -> attempts > 1
                ? put(client, key, value, attempts - 1) : CompletableFuture.failedFuture(e));
    }

    /**
     * Waits until every node answers a status request, starting again one whose process exited (on a loaded machine
     * a server can give up on reaching ZooKeeper at start): the re-join needs both other nodes, a majority of the old
     * voters, to remove the wiped replica's old id.
     */
    private static void awaitEveryNode(ProcessCluster cluster, int timeoutSeconds, Consumer<String> progress)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true) {
            ClusterFile file = cluster.file();
            int answering = 0;
            for (ClusterFile.NodeEntry n : file.nodes()) {
                if (groupStatus(cluster, file, n.id()) != null) {
                    answering++;
                } else if (ProcessHandle.of(n.pid()).map(h -> !h.isAlive()).orElse(true)) {
                    progress.accept("node " + n.id() + " exited at start (see its server.log): starting it again");
                    cluster.restart(n.id());
                }
            }
            if (answering == file.nodes().size()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("only " + answering + " of " + file.nodes().size() + " nodes answer after "
                        + timeoutSeconds + " s");
            }
            Thread.sleep(100);
        }
    }

    /** The node leading group 0 as the nodes in {@code asked} report it; waits for one. */
    private static int leaderNode(ProcessCluster cluster, Set<Integer> asked, int timeoutSeconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (System.nanoTime() < deadline) {
            Map<Integer, Integer> leaders = cluster.leadersAmong(asked);
            if (leaders.containsKey(0)) {
                return leaders.get(0);
            }
            Thread.sleep(50);
        }
        throw new IOException("group 0 has no leader after " + timeoutSeconds + " s");
    }

    private static ClientFrame.GroupStatus groupStatus(ProcessCluster cluster, ClusterFile file, int node) {
        try {
            ClientFrame.StatusReport r = NodeClient.status(cluster.clientAddresses().get(node), 2_000,
                    16 << 20, ClusterCommand.clientTls(cluster.dir(), file));
            return r.groups().get(0);
        } catch (IOException e) {
            return null; // not running, or not answering yet
        }
    }
}
