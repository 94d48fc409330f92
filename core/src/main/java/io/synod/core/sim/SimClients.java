package io.synod.core.sim;

import io.synod.core.history.History;
import io.synod.core.history.HistoryRecorder;
import io.synod.core.paxos.ClientRequest;
import io.synod.core.paxos.Command;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Open-loop clients running the list-append workload: operations arrive as a Poisson process and
 * are handed to an idle worker (an arrival finding every worker busy is dropped, which bounds
 * concurrency). Each worker is one Jepsen process at a time. A request that times out or gets
 * UNKNOWN is retried with the same (client id, sequence) at another node or the leader hint; the
 * replicas apply it at most once.
 *
 * <p>Outcomes, recorded in the history: {@code ok} on an OK reply; for an append, {@code fail} only
 * when every attempt got a definite "not logged" answer (NOT_LEADER, BUSY, REJECTED) — once any
 * attempt timed out or got UNKNOWN the command may sit in some log and take effect later, so running
 * out of attempts is {@code info}, and the process is retired for a fresh one (it may still have an
 * operation in flight). A read that does not get OK is {@code fail}: a read changes nothing.
 *
 * <p>Operations invoked after the faults stop are liveness probes: they retry until they succeed,
 * and one that has not succeeded within the liveness bound is a violation.
 */
final class SimClients {
    /** How requests reach the replicas; implemented by the simulation. */
    interface Transport {
        void sendRequest(int node, ClientRequest request);
    }

    private static final class Op {
        int opId;
        boolean append;
        String key;
        long value;
        /** The append's note (coded mode's large values), or null for a plain append. */
        byte[] note;
        long sequence;
        long invokeNanos;
        boolean livenessProbe;
        int attempts;
        int target;
        boolean awaitingReply;
        long attemptToken;
        boolean mayHaveTakenEffect;
        ClientReply.Status lastStatus;
        /** A probe append: once acknowledged, another client reads the key at this node (else -1). */
        int thenReadAt = -1;
    }

    private static final class Worker {
        int process;
        long clientId;
        long nextSequence = 1;
        int leaderGuess = -1;
        /** The worker's site (node index) under {@link SimScenario#hasSites()}, else -1. */
        int site = -1;
        Op op;
    }

    private final SimConfig config;
    private final SimScenario scenario;
    private final SimRandom random;
    /** Value sizes (coded mode only), a stream of its own so the plain workload draws exactly as before. */
    private final SimRandom valueRandom;
    private final EventQueue queue;
    private final Transport transport;
    private final HistoryRecorder recorder = new HistoryRecorder();
    private final Worker[] workers;
    /** Clients of the hand-over probes ({@link #probeStaleRead}), beside the pool (at most {@link #MAX_PROBE_WORKERS}). */
    private final List<Worker> probeWorkers = new ArrayList<>();
    private static final int MAX_PROBE_WORKERS = 256;
    private final Map<Long, Worker> workerByClient = new HashMap<>();
    private final long[] lastValueByKey;
    private final double[] keyCumulativeWeight;
    /** Per site, popularity rank to key index ({@link SimScenario#perSiteKeyOrder()}), else null. */
    private final int[][] siteKeyOrder;
    /** Completed operations (scenario runs only, else null). */
    private final List<SimOp> ops;
    private int nextProcess;
    private boolean livenessPhase;
    private int faultPhaseInvoked;
    private int livenessInvoked;
    private int okCount;
    private int failCount;
    private int infoCount;
    private SimViolation violation;
    private final boolean checkNotes;
    /** With {@code checkNotes}: per key and element, the CRC32C of the note appended with it. */
    private final Map<String, Map<Long, Integer>> noteChecksums = new HashMap<>();

    SimClients(SimConfig config, SimRandom random, EventQueue queue, Transport transport) {
        this(config, SimScenario.DEFAULT, random, queue, transport, false);
    }

    /**
     * @param checkNotes the replicas keep the CRC32C of each list's last note and end a read's result with it
     *                   ({@link SimStateMachine#KV_WITH_NOTES}): every OK read is checked against the note
     *                   appended with the list's last element
     */
    SimClients(SimConfig config, SimScenario scenario, SimRandom random, EventQueue queue, Transport transport,
            boolean checkNotes) {
        this.checkNotes = checkNotes;
        this.config = config;
        this.scenario = scenario;
        this.ops = scenario.isDefault() ? null : new ArrayList<>();
        this.random = random;
        this.valueRandom = SimRandom.stream(config.seed(), "values");
        this.queue = queue;
        this.transport = transport;
        this.workers = new Worker[config.workers()];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Worker();
            workers[i].site = scenario.hasSites() ? i / scenario.clientsPerSite() : -1;
            assignFreshProcess(workers[i]);
        }
        this.lastValueByKey = new long[config.keys()];
        this.keyCumulativeWeight = new double[config.keys()];
        double total = 0;
        for (int i = 0; i < config.keys(); i++) {
            if (Double.isNaN(scenario.zipfExponent())) {
                total += config.zipfKeys() ? 1.0 / (i + 1) : 1.0;
            } else {
                total += 1.0 / Math.pow(i + 1, scenario.zipfExponent());
            }
            keyCumulativeWeight[i] = total;
        }
        for (int i = 0; i < config.keys(); i++) {
            keyCumulativeWeight[i] /= total;
        }
        siteKeyOrder = scenario.perSiteKeyOrder() ? SimScenario.siteKeyOrder(config.seed(), scenario.latency().size(), config.keys()) : null;
    }

    /** Completed operations of a scenario run, in completion order (empty for default runs). */
    List<SimOp> ops() {
        return ops == null ? List.of() : List.copyOf(ops);
    }

    /** The site of a client id's worker, or -1 (not attached, or a retired client). */
    int siteOfClient(long clientId) {
        Worker worker = workerByClient.get(clientId);
        return worker == null ? -1 : worker.site;
    }

    void start() {
        scheduleArrival();
    }

    /** Faults are over: the remaining operations are liveness probes. */
    void startLivenessPhase() {
        livenessPhase = true;
        scheduleArrival();
    }

    boolean faultPhaseOpsInvoked() {
        if (scenario.invokeUntilNanos() >= 0 && queue.now() >= scenario.invokeUntilNanos()) {
            return true;
        }
        return faultPhaseInvoked >= config.faultPhaseOps();
    }

    /** Every operation invoked and none outstanding. */
    boolean finished() {
        if (!livenessPhase || livenessInvoked < config.livenessOps()) {
            return false;
        }
        for (Worker worker : workers) {
            if (worker.op != null) {
                return false;
            }
        }
        for (Worker worker : probeWorkers) {
            if (worker.op != null) {
                return false;
            }
        }
        return true;
    }

    SimViolation violation() {
        return violation;
    }

    History history() {
        return recorder.history();
    }

    int invoked() {
        return faultPhaseInvoked + livenessInvoked;
    }

    int okCount() {
        return okCount;
    }

    int failCount() {
        return failCount;
    }

    int infoCount() {
        return infoCount;
    }

    /** Descriptions of outstanding operations, for liveness reports. */
    List<String> outstanding() {
        List<String> out = new ArrayList<>();
        for (Worker worker : workers) {
            if (worker.op != null) {
                out.add(describe(worker, worker.op));
            }
        }
        for (Worker worker : probeWorkers) {
            if (worker.op != null) {
                out.add(describe(worker, worker.op));
            }
        }
        return out;
    }

    void onReply(int fromNode, ClientReply reply) {
        Worker worker = workerByClient.get(reply.clientId());
        if (worker == null || worker.op == null || worker.op.sequence != reply.sequence()) {
            return; // an answer to a retired process or to an earlier operation
        }
        Op op = worker.op;
        ClientReply.Status status = reply.status();
        if (status == ClientReply.Status.OK) {
            worker.leaderGuess = fromNode;
            completeOk(worker, op, reply, fromNode);
            return;
        }
        if (status == ClientReply.Status.UNKNOWN) {
            op.mayHaveTakenEffect = true;
        }
        if (fromNode != op.target || !op.awaitingReply) {
            return; // the answer to an attempt that already timed out
        }
        op.awaitingReply = false;
        op.lastStatus = status;
        switch (status) {
            case NOT_LEADER, BUSY, UNKNOWN -> {
                int hint = reply.leaderHint();
                boolean freshHint = hint >= 0 && hint != fromNode && hint < config.nodes();
                worker.leaderGuess = freshHint ? hint : -1;
                retry(worker, op, freshHint ? hint : random.otherNode(config.nodes(), fromNode),
                        freshHint && status == ClientReply.Status.NOT_LEADER);
            }
            default -> finishWithoutOk(worker, op);
        }
    }

    private void scheduleArrival() {
        queue.after(random.exponential(config.meanOpIntervalNanos()), this::onArrival);
    }

    private void onArrival() {
        if (livenessPhase ? livenessInvoked >= config.livenessOps() : faultPhaseOpsInvoked()) {
            return; // this phase's arrivals are done; startLivenessPhase() starts the next stream
        }
        Worker idle = pickIdleWorker();
        if (idle != null) {
            invoke(idle);
        }
        scheduleArrival();
    }

    private Worker pickIdleWorker() {
        int start = random.nextInt(workers.length);
        for (int i = 0; i < workers.length; i++) {
            Worker worker = workers[(start + i) % workers.length];
            if (worker.op == null) {
                return worker;
            }
        }
        return null;
    }

    /**
     * The hand-over probe (SimFaults' {@code ISOLATE_AFTER_COMMIT}): an idle client that follows the
     * oracle appends to a key at {@code writeNode}, the node just elected; when that append is
     * acknowledged, another idle client, whose view of the oracle lags, reads the same key at
     * {@code readNode}, the deposed leader. Both are ordinary operations of the history, by clients of
     * their own beside the pool (a pool busy with retries must not hide the race); fault phase only.
     */
    void probeStaleRead(int writeNode, int readNode) {
        if (livenessPhase || faultPhaseOpsInvoked()) {
            return;
        }
        Worker writer = probeWorker();
        if (writer == null) {
            return;
        }
        int keyIndex = pickKey();
        Op op = invoke(writer, keyIndex, true, writeNode);
        op.thenReadAt = readNode;
    }

    private void invoke(Worker worker) {
        int keyIndex = siteKeyOrder == null ? pickKey() : siteKeyOrder[worker.site][pickKey()];
        boolean append = random.nextInt(100) >= config.readPercent();
        // A client attached to a site reads at its own site's replica first (a lease holder answers there).
        int target = worker.site >= 0 && !append ? worker.site
                : worker.leaderGuess >= 0 ? worker.leaderGuess : worker.site >= 0 ? worker.site : -1;
        invoke(worker, keyIndex, append, target);
    }

    /** Invokes an operation on {@code keyIndex} and sends its first attempt to {@code target} (-1: a random node). */
    private Op invoke(Worker worker, int keyIndex, boolean append, int target) {
        Op op = new Op();
        op.key = "k" + keyIndex;
        op.append = append;
        op.sequence = worker.nextSequence++;
        op.invokeNanos = queue.now();
        op.livenessProbe = livenessPhase;
        if (op.append) {
            op.value = ++lastValueByKey[keyIndex];
            op.note = note(op.value);
            if (checkNotes) {
                noteChecksums.computeIfAbsent(op.key, k -> new HashMap<>()).put(op.value, crc(op.note));
            }
            op.opId = recorder.invokeAppend(worker.process, op.key, op.value, queue.now());
        } else {
            op.opId = recorder.invokeRead(worker.process, op.key, queue.now());
        }
        if (livenessPhase) {
            livenessInvoked++;
            queue.after(config.livenessBoundNanos(), () -> {
                if (worker.op == op) {
                    fail(SimViolation.Kind.LIVENESS, "after faults stopped, " + describe(worker, op) + " did not succeed within "
                            + config.livenessBoundNanos() / 1_000_000 + " ms");
                }
            });
        } else {
            faultPhaseInvoked++;
        }
        worker.op = op;
        attempt(worker, op, target >= 0 ? target : random.nextInt(config.nodes()));
        return op;
    }

    /** The note an append carries under {@link SimConfig#coding()}'s value mix, or null (pseudo-random bytes). */
    private byte[] note(long element) {
        SimCoding mix = config.coding();
        if (mix.largePercent() == 0) {
            return null;
        }
        boolean large = valueRandom.nextInt(100) < mix.largePercent();
        int length = large ? (int) valueRandom.uniform(mix.minLargeBytes(), mix.maxLargeBytes())
                : valueRandom.nextInt(48);
        byte[] note = new byte[length];
        long state = valueRandom.nextLong() ^ element;
        for (int i = 0; i < length; i += 8) {
            state = SimRandom.splitMix64(state);
            for (int b = 0; b < 8 && i + b < length; b++) {
                note[i + b] = (byte) (state >>> (8 * b));
            }
        }
        return note;
    }

    private int pickKey() {
        double draw = random.nextDouble();
        int index = Arrays.binarySearch(keyCumulativeWeight, draw);
        int key = index >= 0 ? index : -index - 1;
        return Math.min(key, config.keys() - 1);
    }

    private void attempt(Worker worker, Op op, int node) {
        op.attempts++;
        op.target = node;
        op.awaitingReply = true;
        long token = ++op.attemptToken;
        KvCommand command = !op.append ? new KvCommand.ReadList(op.key)
                : op.note == null ? new KvCommand.Append(op.key, op.value) : new KvCommand.AppendNote(op.key, op.value, op.note);
        transport.sendRequest(node, new ClientRequest(new Command(worker.clientId, op.sequence, command.encode())));
        long timeout = scenario.clientAttemptTimeoutNanos() > 0 ? scenario.clientAttemptTimeoutNanos() : SimTiming.CLIENT_ATTEMPT_TIMEOUT_NANOS;
        queue.after(timeout, () -> {
            if (worker.op == op && op.attemptToken == token && op.awaitingReply) {
                op.awaitingReply = false;
                op.mayHaveTakenEffect = true;
                op.lastStatus = null;
                worker.leaderGuess = -1;
                retry(worker, op, random.otherNode(config.nodes(), node), false);
            }
        });
    }

    private void retry(Worker worker, Op op, int node, boolean immediately) {
        int maxAttempts = scenario.clientMaxAttempts() > 0 ? scenario.clientMaxAttempts() : SimTiming.CLIENT_MAX_ATTEMPTS;
        if (!op.livenessProbe && op.attempts >= maxAttempts) {
            finishWithoutOk(worker, op);
            return;
        }
        long backoff = immediately ? random.uniform(10 * SimTiming.MICROS, 100 * SimTiming.MICROS)
                : random.uniform(SimTiming.CLIENT_BACKOFF_MAX_NANOS / 10, SimTiming.CLIENT_BACKOFF_MAX_NANOS);
        queue.after(backoff, () -> {
            if (worker.op == op) {
                attempt(worker, op, node);
            }
        });
    }

    private static int crc(byte[] note) {
        CRC32C crc = new CRC32C();
        if (note != null) {
            crc.update(note);
        }
        return (int) crc.getValue();
    }

    private void completeOk(Worker worker, Op op, ClientReply reply, int fromNode) {
        KvResult result;
        byte[] bytes = reply.result();
        int noteCrc = 0;
        if (checkNotes && !op.append && bytes.length >= 4) {
            noteCrc = ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt();
            bytes = Arrays.copyOf(bytes, bytes.length - 4);
        }
        try {
            result = KvResult.decode(bytes);
        } catch (IllegalArgumentException e) {
            fail(SimViolation.Kind.UNEXPECTED_REPLY, describe(worker, op) + " got an undecodable result: " + e.getMessage());
            return;
        }
        if (op.append && result instanceof KvResult.Done) {
            recorder.okAppend(op.opId, queue.now());
        } else if (!op.append && result instanceof KvResult.ListValue list) {
            List<Long> values = new ArrayList<>(list.elements().length);
            for (long element : list.elements()) {
                values.add(element);
            }
            if (checkNotes) {
                long[] elements = list.elements();
                Integer expected = elements.length == 0 ? Integer.valueOf(crc(null))
                        : noteChecksums.getOrDefault(op.key, Map.of()).get(elements[elements.length - 1]);
                if (expected == null || expected != noteCrc) {
                    fail(SimViolation.Kind.WRONG_VALUE, describe(worker, op) + " read " + elements.length + " elements from node "
                            + fromNode + " with a last note of CRC32C " + Integer.toHexString(noteCrc) + ", but the note appended with "
                            + (elements.length == 0 ? "no element" : "element " + elements[elements.length - 1]) + " has "
                            + (expected == null ? "none recorded" : Integer.toHexString(expected)));
                    return;
                }
            }
            recorder.okRead(op.opId, values, queue.now());
        } else {
            fail(SimViolation.Kind.UNEXPECTED_REPLY, describe(worker, op) + " got result " + result);
            return;
        }
        okCount++;
        record(worker, op, SimOp.Outcome.OK, fromNode);
        worker.op = null;
        if (op.thenReadAt >= 0 && !livenessPhase) {
            Worker reader = probeWorker();
            if (reader != null) {
                invoke(reader, Integer.parseInt(op.key.substring(1)), false, op.thenReadAt);
            }
        }
    }

    private void finishWithoutOk(Worker worker, Op op) {
        if (op.livenessProbe) {
            fail(SimViolation.Kind.LIVENESS, "after faults stopped, " + describe(worker, op) + " ended without success");
            return;
        }
        worker.op = null;
        if (op.append && op.mayHaveTakenEffect) {
            recorder.info(op.opId, queue.now());
            record(worker, op, SimOp.Outcome.INFO, -1);
            infoCount++;
            assignFreshProcess(worker);
        } else {
            recorder.fail(op.opId, queue.now());
            record(worker, op, SimOp.Outcome.FAIL, -1);
            failCount++;
        }
    }

    private void record(Worker worker, Op op, SimOp.Outcome outcome, int node) {
        if (ops != null) {
            ops.add(new SimOp(worker.site, op.append, op.key, op.invokeNanos, queue.now(), outcome, node, op.attempts));
        }
    }

    /** A fresh client for a probe, or null once {@link #MAX_PROBE_WORKERS} were made. */
    private Worker probeWorker() {
        if (probeWorkers.size() >= MAX_PROBE_WORKERS) {
            return null;
        }
        Worker worker = new Worker();
        assignFreshProcess(worker);
        probeWorkers.add(worker);
        return worker;
    }

    private void assignFreshProcess(Worker worker) {
        workerByClient.remove(worker.clientId);
        worker.process = nextProcess++;
        // Client id 0 is reserved for no-ops.
        worker.clientId = worker.process + 1L;
        worker.nextSequence = 1;
        workerByClient.put(worker.clientId, worker);
    }

    private String describe(Worker worker, Op op) {
        return (op.append ? "append " + op.value + " to " : "read of ") + op.key + " by process " + worker.process
                + " (client " + worker.clientId + "#" + op.sequence + ", invoked at " + op.invokeNanos / 1_000 + "us, "
                + op.attempts + " attempts, last status " + (op.lastStatus == null ? "timeout" : op.lastStatus) + ")";
    }

    private void fail(SimViolation.Kind kind, String description) {
        if (violation == null) {
            violation = new SimViolation(kind, queue.now(), description);
        }
    }
}
