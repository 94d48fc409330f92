package io.synod.server.log;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A node's storage: one {@link NodeLog} in {@code <data>/log/} shared by all its groups, and each group's
 * {@link GroupStorage} view with its own directory {@code <data>/group-<g>/} (promise, snapshots, repair
 * marker). Opening converts group directories of the previous layout (a log per group) and ends the node
 * log's recovery once every group has recorded a repair its records call for.
 */
public final class NodeStorage implements AutoCloseable {
    private final NodeLog log;
    private final GroupStorage[] groups;

    private NodeStorage(NodeLog log, GroupStorage[] groups) {
        this.log = log;
        this.groups = groups;
    }

    public static NodeStorage open(Path dataDir, long segmentBytes, int groupCount) throws IOException {
        NodeLog log = NodeLog.open(dataDir.resolve("log"), segmentBytes);
        GroupStorage[] groups = new GroupStorage[groupCount];
        try {
            for (int g = 0; g < groupCount; g++) {
                groups[g] = GroupStorage.open(groupDir(dataDir, g), log, g, segmentBytes, false);
            }
            log.finishRecovery();
        } catch (IOException | RuntimeException e) {
            for (GroupStorage s : groups) {
                if (s != null) {
                    s.close();
                }
            }
            log.close();
            throw e;
        }
        return new NodeStorage(log, groups);
    }

    public static Path groupDir(Path dataDir, int group) {
        return dataDir.resolve("group-" + group);
    }

    /** Group {@code group}'s storage; its owner (the group's runner) closes it, the node log stays open. */
    public GroupStorage group(int group) {
        return groups[group];
    }

    public NodeLog log() {
        return log;
    }

    /** {@code synod.log.fsyncs}: the node log's fsyncs (one may cover many groups' writes). */
    public void bindMetrics(MeterRegistry registry) {
        FunctionCounter.builder("synod.log.fsyncs", log, NodeLog::fsyncs)
                .description("fsyncs of the node log (one covers every group's appends before it)").register(registry);
    }

    @Override
    public void close() throws IOException {
        log.close();
    }
}
