package io.synod.bench.kv;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU ticks and context switches of every thread of the server processes, from {@code /proc/<pid>/task/<tid>/stat}
 * and {@code .../status}, grouped by thread role. A hand-off between threads (event loop to worker to log writer
 * and back) costs a wake-up, which a sampling profiler does not see but the switch counters do; and the CPU per
 * role over the measured window says which threads spend it at steady state (JIT compiler threads vs the
 * runtime's own).
 *
 * <p>The role is the kernel's thread name ({@code comm}, the first 15 characters of the Java thread name) with
 * trailing digits, dashes, '#' and spaces cut: {@code synod-worker-1} and {@code synod-worker-0} are one role.
 * A thread that ends between two snapshots takes its counts with it (the process totals in {@link ServerCost}
 * keep its CPU; its switches are lost), so compare snapshots of a steady run.
 */
final class ThreadCosts {
    /** One thread's counters at one moment. */
    record Counters(String role, long userTicks, long systemTicks, long voluntary, long involuntary) {
    }

    /** Counters per role, spent between two snapshots. */
    record Spent(Map<String, Counters> byRole) {
        long switches() {
            return byRole.values().stream().mapToLong(c -> c.voluntary + c.involuntary).sum();
        }

        long voluntary() {
            return byRole.values().stream().mapToLong(Counters::voluntary).sum();
        }

        long involuntary() {
            return byRole.values().stream().mapToLong(Counters::involuntary).sum();
        }
    }

    /** Every live thread's counters, keyed by "pid/tid". */
    private final Map<String, Counters> threads;

    private ThreadCosts(Map<String, Counters> threads) {
        this.threads = threads;
    }

    static ThreadCosts snapshot(List<Long> pids) throws IOException {
        Map<String, Counters> all = new HashMap<>();
        for (long pid : pids) {
            Path tasks = Path.of("/proc", Long.toString(pid), "task");
            try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
                for (Path task : dir) {
                    try {
                        String stat = Files.readString(task.resolve("stat"));
                        String status = Files.readString(task.resolve("status"));
                        all.put(pid + "/" + task.getFileName(), new Counters(role(comm(stat)),
                                field(stat, 14), field(stat, 15),
                                statusValue(status, "voluntary_ctxt_switches"), statusValue(status, "nonvoluntary_ctxt_switches")));
                    } catch (NoSuchFileException ended) {
                        // the thread ended while the directory was read: it has no counters any more
                    }
                }
            } catch (NoSuchFileException gone) {
                throw new IOException("server process " + pid + " is gone: its threads cannot be measured");
            }
        }
        return new ThreadCosts(all);
    }

    /** What each role spent from {@code earlier} to this snapshot (threads started since count from zero). */
    Spent minus(ThreadCosts earlier) {
        Map<String, Counters> byRole = new TreeMap<>();
        threads.forEach((id, now) -> {
            Counters then = earlier.threads.get(id);
            Counters d = then == null || !then.role.equals(now.role) ? now
                    : new Counters(now.role, now.userTicks - then.userTicks, now.systemTicks - then.systemTicks,
                            now.voluntary - then.voluntary, now.involuntary - then.involuntary);
            byRole.merge(now.role, d, (a, b) -> new Counters(a.role, a.userTicks + b.userTicks,
                    a.systemTicks + b.systemTicks, a.voluntary + b.voluntary, a.involuntary + b.involuntary));
        });
        return new Spent(byRole);
    }

    /** The thread name between the first '(' and the last ')' (it may hold spaces and parentheses). */
    static String comm(String stat) {
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        if (open < 0 || close < open) {
            throw new IllegalArgumentException("not a /proc/<pid>/task/<tid>/stat line: " + stat);
        }
        return stat.substring(open + 1, close);
    }

    /** A thread name without its trailing number: the threads of one pool are one role. */
    static String role(String comm) {
        int end = comm.length();
        while (end > 0 && "0123456789-# ".indexOf(comm.charAt(end - 1)) >= 0) {
            end--;
        }
        return end == 0 ? comm : comm.substring(0, end);
    }

    /** Field {@code n} (1-based, proc(5)) of a stat line, counted after the parenthesised name. */
    static long field(String stat, int n) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return Long.parseLong(fields[n - 3]);
    }

    static long statusValue(String status, String key) {
        for (String line : status.split("\n")) {
            if (line.startsWith(key + ":")) {
                return Long.parseLong(line.substring(key.length() + 1).trim());
            }
        }
        throw new IllegalArgumentException("no " + key + " in a /proc status file");
    }
}
