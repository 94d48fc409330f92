package io.synod.server.log;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A node's storage: its groups' records in {@code S} {@link NodeLog}s, the log shards ({@code log.shards}, default
 * 1): shard 0 in {@code <data>/log/}, shard k in {@code <data>/log-<k>/}, group g in shard g mod S; and each group's
 * {@link GroupStorage} view with its own directory {@code <data>/group-<g>/} (promise, snapshots, repair marker).
 * Opening converts group directories of the previous layout (a log per group) and ends each shard's recovery once
 * every group has recorded a repair its records call for.
 *
 * <p>The shard count of a data directory is fixed when it is first opened: a group's records must be found in the
 * shard it is assigned to, or the newest of them could be missed. A directory with a shard beyond {@code S}, or a
 * shard holding a group that {@code S} assigns elsewhere, is refused with one line naming the shard count to use.
 */
public final class NodeStorage implements AutoCloseable {
    private static final Pattern SHARD_DIR = Pattern.compile("log-(\\d+)");

    private final NodeLog[] shards;
    private final GroupStorage[] groups;

    private NodeStorage(NodeLog[] shards, GroupStorage[] groups) {
        this.shards = shards;
        this.groups = groups;
    }

    /** One log shard. */
    public static NodeStorage open(Path dataDir, long segmentBytes, int groupCount) throws IOException {
        return open(dataDir, segmentBytes, groupCount, 1);
    }

    /** {@code shardCount} log shards (1 ≤ shards ≤ groups), group g in shard g mod shards. */
    public static NodeStorage open(Path dataDir, long segmentBytes, int groupCount, int shardCount) throws IOException {
        if (shardCount < 1 || shardCount > groupCount) {
            throw new IllegalArgumentException("log.shards must be 1.." + groupCount + " (the node's groups), got " + shardCount);
        }
        checkNoShardBeyond(dataDir, shardCount);
        NodeLog[] shards = new NodeLog[shardCount];
        GroupStorage[] groups = new GroupStorage[groupCount];
        try {
            for (int k = 0; k < shardCount; k++) {
                shards[k] = NodeLog.open(shardDir(dataDir, k), segmentBytes);
                for (int g : shards[k].groupsRecorded()) {
                    if (Math.floorMod(g, shardCount) != k) {
                        throw new IOException("log shard " + shardDir(dataDir, k) + " holds records of group " + g + ", which "
                                + "log.shards=" + shardCount + " assigns to " + shardDir(dataDir, Math.floorMod(g, shardCount))
                                + ": the shard count of a data directory cannot change; start with the log.shards it was "
                                + "created with");
                    }
                }
            }
            for (int g = 0; g < groupCount; g++) {
                groups[g] = GroupStorage.open(groupDir(dataDir, g), shards[g % shardCount], g, segmentBytes, false);
            }
            for (NodeLog log : shards) {
                log.finishRecovery();
            }
        } catch (IOException | RuntimeException e) {
            for (GroupStorage s : groups) {
                if (s != null) {
                    s.close();
                }
            }
            for (NodeLog log : shards) {
                if (log != null) {
                    log.close();
                }
            }
            throw e;
        }
        return new NodeStorage(shards, groups);
    }

    /** Refuses a data directory with a shard directory {@code log-<k>} for k ≥ {@code shardCount}. */
    private static void checkNoShardBeyond(Path dataDir, int shardCount) throws IOException {
        if (!Files.isDirectory(dataDir)) {
            return;
        }
        int highest = 0;
        try (Stream<Path> s = Files.list(dataDir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Matcher m = SHARD_DIR.matcher(p.getFileName().toString());
                if (m.matches() && Files.isDirectory(p)) {
                    highest = Math.max(highest, Integer.parseInt(m.group(1)));
                }
            }
        }
        if (highest >= shardCount) {
            throw new IOException("data directory " + dataDir + " has log shard " + shardDir(dataDir, highest).getFileName()
                    + ", so it was created with log.shards >= " + (highest + 1) + " but log.shards=" + shardCount
                    + ": the shard count of a data directory cannot change; start with the log.shards it was created with");
        }
    }

    /**
     * What of group {@code group}'s acceptor state is missing from {@code dataDir}, or null if nothing detectably is
     * (docs/server.md, "Node identity"): its directory (promise, snapshots, RocksDB), its promise file (created when
     * the group is first opened, before anything else of it), or the log shard that holds its accepted entries when
     * that is shard 0, {@code log/} ({@code shardCount} shards; a directory of the previous layout keeps a log in the
     * group directory instead). Only
     * meaningful for a directory whose node identity shows it was started before: a first start has none of these yet.
     */
    public static String lostState(Path dataDir, int group, int shardCount) {
        Path dir = groupDir(dataDir, group);
        if (!Files.isDirectory(dir)) {
            return dir.getFileName() + "/ is missing";
        }
        if (!Files.isRegularFile(dir.resolve(GroupStorage.PROMISE_FILE))) {
            return dir.getFileName() + "/" + GroupStorage.PROMISE_FILE + " is missing";
        }
        // Only shard 0 ({@code log/}) exists in every layout: a missing log-<k> may be a directory created with fewer
        // shards than log.shards says, which open() refuses, so it is not taken for a loss.
        Path shard = shardDir(dataDir, 0);
        if (Math.floorMod(group, shardCount) == 0 && !Files.isDirectory(shard)
                && !Files.isDirectory(dir.resolve(GroupStorage.LEGACY_LOG_DIR))) {
            return "its log shard " + shard.getFileName() + "/ is missing";
        }
        return null;
    }

    /** Where shard {@code k} keeps its segments: {@code log} for shard 0 (a data directory of one shard), else {@code log-k}. */
    public static Path shardDir(Path dataDir, int k) {
        return dataDir.resolve(k == 0 ? "log" : "log-" + k);
    }

    public static Path groupDir(Path dataDir, int group) {
        return dataDir.resolve("group-" + group);
    }

    /** Group {@code group}'s storage; its owner (the group's runner) closes it, the node log stays open. */
    public GroupStorage group(int group) {
        return groups[group];
    }

    /** The log shards, shard k at index k. */
    public List<NodeLog> shards() {
        return List.of(shards);
    }

    /** fsyncs of every shard since open (one may cover many groups' writes). */
    public long fsyncs() {
        long sum = 0;
        for (NodeLog log : shards) {
            sum += log.fsyncs();
        }
        return sum;
    }

    /** {@code synod.log.fsyncs}: the node log's fsyncs, summed over its shards (one may cover many groups' writes). */
    public void bindMetrics(MeterRegistry registry) {
        FunctionCounter.builder("synod.log.fsyncs", this, NodeStorage::fsyncs)
                .description("fsyncs of the node log, all shards (one covers every group's appends before it)")
                .register(registry);
    }

    @Override
    public void close() throws IOException {
        List<IOException> failures = new ArrayList<>();
        for (NodeLog log : shards) {
            try {
                log.close();
            } catch (IOException e) {
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
    }
}
