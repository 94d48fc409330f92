package io.synod.server.group;

import io.synod.coordination.ElectionService;
import io.synod.core.paxos.GroupMembership;
import io.synod.core.paxos.Replica;
import io.synod.protocol.ElectionEvent;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One group replica's place in the ZooKeeper election: the election only names voters (docs/membership.md, "Changes
 * through the group driver"). The driver asks to stand (it is serving) or to leave (it failed); the replica stands
 * only while it votes in the membership it applied, so a learner or a replica outside the membership (a new
 * incarnation's, a removed one) stays out, and one that stops voting leaves. Touched on the group's worker (and at
 * start and close, when the worker does not run).
 */
final class ElectionStanding {
    private static final Logger LOG = LoggerFactory.getLogger(ElectionStanding.class);

    private final int group;
    /** Null in tests that feed elections by hand. */
    private final ElectionService election;
    private final Consumer<ElectionEvent> events;
    /** The driver asked to stand for election. */
    private boolean wanted;
    /** Whether the replica stands now. */
    private volatile boolean standing;

    ElectionStanding(int group, ElectionService election, Consumer<ElectionEvent> events) {
        this.group = group;
        this.election = election;
        this.events = events;
    }

    /** The driver wants to stand: joins now if {@code replica} votes. */
    void join(Replica replica) {
        wanted = true;
        follow(replica);
    }

    /** After a pass: joins once {@code replica} votes (promoted), leaves once it does not (removed). */
    void follow(Replica replica) {
        if (election == null) {
            return;
        }
        GroupMembership m = replica.membership().applied();
        boolean voter = m.isVoter(replica.nodeId());
        if (wanted && voter && !standing) {
            standing = true;
            election.join(group, (g, event) -> events.accept(event));
        } else if (standing && !voter) {
            LOG.info("group {}: replica {} no longer votes ({}): leaving the election", group, replica.nodeId(), m);
            leaveNow();
        }
    }

    void resign() {
        if (election != null && standing) {
            election.resign(group);
        }
    }

    /** The driver leaves the election (its group failed). */
    void leave() {
        wanted = false;
        leaveNow();
    }

    /** A stopping group leaves the election if it stands. */
    void leaveOnClose() {
        if (standing) {
            leaveNow();
        }
    }

    private void leaveNow() {
        if (election == null || !standing) {
            return;
        }
        standing = false;
        try {
            election.leave(group);
        } catch (RuntimeException e) {
            LOG.warn("group {}: leaving the election failed: {}", group, e.toString());
        }
    }
}
