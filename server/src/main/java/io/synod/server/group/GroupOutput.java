package io.synod.server.group;

import io.synod.core.paxos.Message;
import io.synod.core.paxos.Replica;
import io.synod.engine.DriverLog;
import io.synod.engine.DriverOutput;
import io.synod.server.log.GroupStorage;
import io.synod.server.state.RocksKvStateMachine;
import io.synod.server.wire.WireFrame;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner's side of a group driver's outputs, called on the group's worker: the network, the disk (the group's
 * {@link WriterJobs} and the state machine's per-pass batch) and the election service ({@link ElectionStanding}).
 */
final class GroupOutput implements DriverOutput {
    /** The driver's lines are logged as the group runner's, where they were logged before this class existed. */
    private static final Logger LOG = LoggerFactory.getLogger(GroupLoop.class);

    private final int group;
    private final Consumer<WireFrame.PeerMessage> network;
    private final SentKinds sentKinds;
    private final WriterJobs writerJobs;
    /** The RocksDB machine whose staged applies are written in one batch after each pass, or null. */
    private final RocksKvStateMachine durableMachine;
    private final ElectionStanding standing;
    /** The driver's replica (the driver is built with this output, so it is asked for when needed). */
    private final Supplier<Replica> replica;

    GroupOutput(int group, Consumer<WireFrame.PeerMessage> network, SentKinds sentKinds, WriterJobs writerJobs,
            RocksKvStateMachine durableMachine, ElectionStanding standing, Supplier<Replica> replica) {
        this.group = group;
        this.network = network;
        this.sentKinds = sentKinds;
        this.writerJobs = writerJobs;
        this.durableMachine = durableMachine;
        this.standing = standing;
        this.replica = replica;
    }

    @Override
    public void send(Message message) {
        sentKinds.sent(message);
        network.accept(new WireFrame.PeerMessage(group, message));
    }

    @Override
    public void log(DriverLog.Level level, String line) {
        switch (level) {
            case INFO -> LOG.info(line);
            case WARN -> LOG.warn(line);
            case ERROR -> LOG.error(line);
        }
    }

    @Override
    public void compactThrough(long slot) {
        writerJobs.storageJob(s -> s.compactThrough(slot));
    }

    @Override
    public void commitApplied() {
        if (durableMachine != null) {
            durableMachine.commitApplied();
        }
    }

    @Override
    public void finishRepair() {
        // Queued behind this group's persists: a crash before it runs leaves the marker, so the replica
        // repairs again after a restart (conservative), never the other way round.
        writerJobs.storageJob(GroupStorage::finishRepair);
    }

    @Override
    public void joinElection() {
        standing.join(replica.get());
    }

    @Override
    public void resign() {
        standing.resign();
    }

    @Override
    public void leaveElection() {
        standing.leave();
    }
}
