package io.synod.bench.coded;

import com.sun.management.OperatingSystemMXBean;
import io.synod.server.group.GroupWorkers;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Where one measured run of {@link CodedBench} spent the machine, from this JVM's own counters (the five
 * servers, the proxies and the clients all run in it): process CPU, the CPU of each server's named threads
 * (group workers and log writer: {@code synod-worker-<k> of synod-node-<id>-groups}, {@code synod-logwriter of ...}), what no Java thread accounts for (the JIT
 * compiler and the garbage collector), stop-the-world GC time, and each peer link's bytes against its cap.
 * These say what bounds a run: a link at its cap, the leader's threads at a core, or neither (then the
 * latency of the write path under this machine's load: fsyncs, scheduling, GC pauses).
 */
final class RunCosts {
    private final OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final long startNanos = System.nanoTime();
    private final long startProcessCpu = os.getProcessCpuTime();
    private final Map<Long, Long> startThreadCpu = threadCpu();
    private final long startGcMillis = gcMillis();
    private final long[] startLinkBytes;

    /** Starts counting; {@code linkBytes[from][to]}: bytes forwarded so far on each directed peer link. */
    RunCosts(long[][] linkBytes) {
        startLinkBytes = flatten(linkBytes);
    }

    /** The figures since construction; {@code leader} is the node that led the run. */
    Summary finish(long[][] linkBytes, int leader, long capBytesPerSecond) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        double process = (os.getProcessCpuTime() - startProcessCpu) / 1e9;
        double leaderGroups = 0;
        double leaderLog = 0;
        double leaderOther = 0;
        double followers = 0;
        double javaThreads = 0;
        Map<Long, Long> now = threadCpu();
        for (ThreadInfo info : threads.getThreadInfo(now.keySet().stream().mapToLong(Long::longValue).toArray())) {
            if (info == null) {
                continue;
            }
            long id = info.getThreadId();
            double cpu = (now.get(id) - startThreadCpu.getOrDefault(id, 0L)) / 1e9;
            javaThreads += cpu;
            String name = info.getThreadName();
            String leaderPrefix = "synod-node-" + leader + "-";
            // Workers and the log writer are named role first ("synod-worker-0 of synod-node-1-groups", GroupWorkers).
            String leaderPool = GroupWorkers.THREAD_OF + leaderPrefix + "groups";
            if (name.equals(GroupWorkers.LOG_WRITER_THREAD + leaderPool)) {
                leaderLog += cpu;
            } else if (name.startsWith(GroupWorkers.WORKER_THREAD) && name.endsWith(leaderPool)) {
                leaderGroups += cpu;
            } else if (name.startsWith(leaderPrefix)) {
                leaderOther += cpu;
            } else if (name.startsWith("synod-node-") || name.contains(GroupWorkers.THREAD_OF + "synod-node-")) {
                followers += cpu;
            }
        }
        long[] end = flatten(linkBytes);
        double leaderLinksMax = 0;
        double leaderLinksMin = Double.MAX_VALUE;
        int n = linkBytes.length;
        for (int to = 0; to < n; to++) {
            if (to != leader) {
                double use = (end[leader * n + to] - startLinkBytes[leader * n + to]) / (capBytesPerSecond * seconds);
                leaderLinksMax = Math.max(leaderLinksMax, use);
                leaderLinksMin = Math.min(leaderLinksMin, use);
            }
        }
        return new Summary(seconds, process, leaderGroups, leaderLog, leaderOther, followers,
                Math.max(0, process - javaThreads), (gcMillis() - startGcMillis) / 1e3, leaderLinksMin, leaderLinksMax);
    }

    /**
     * CPU in cores (CPU seconds per second of the run): the whole process; the leader's group worker, log writer
     * and other named threads; the other servers' named threads; and the CPU no Java thread accounts for (JIT
     * compiler and GC threads). {@code gcSeconds}: collection time the collectors report (pauses included).
     * Links: the least and the most used of the leader's links to the followers, as a fraction of the cap.
     */
    record Summary(double seconds, double processCpu, double leaderGroupsCpu, double leaderLogCpu, double leaderOtherCpu,
            double followersCpu, double jvmInternalCpu, double gcSeconds, double leaderLinkMinUse, double leaderLinkMaxUse) {

        String line() {
            return String.format(Locale.ROOT, "cpu %.2f cores (leader: group worker %.2f, log writer %.2f, other %.2f; "
                    + "followers %.2f; JIT+GC %.2f), GC %.2f s; leader->follower links %.0f-%.0f%% of cap", processCpu / seconds,
                    leaderGroupsCpu / seconds, leaderLogCpu / seconds, leaderOtherCpu / seconds, followersCpu / seconds,
                    jvmInternalCpu / seconds, gcSeconds, 100 * leaderLinkMinUse, 100 * leaderLinkMaxUse);
        }
    }

    private Map<Long, Long> threadCpu() {
        Map<Long, Long> cpu = new HashMap<>();
        for (long id : threads.getAllThreadIds()) {
            long t = threads.getThreadCpuTime(id);
            if (t >= 0) {
                cpu.put(id, t);
            }
        }
        return cpu;
    }

    private static long gcMillis() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }

    private static long[] flatten(long[][] perLink) {
        int n = perLink.length;
        long[] flat = new long[n * n];
        for (int from = 0; from < n; from++) {
            System.arraycopy(perLink[from], 0, flat, from * n, n);
        }
        return flat;
    }
}
