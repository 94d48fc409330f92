package io.synod.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.Role;
import io.synod.leases.LeaderLeaseConfig;
import io.synod.leases.QuorumLeaseConfig;
import io.synod.leases.ReadLease;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import io.synod.protocol.WatchCodec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The group driver under a fake clock: no thread, no disk, no socket; time and fsyncs are the test's. */
class GroupDriverTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final byte[] PUT = new KvCommand.Put("k", new byte[] {1}).encode();
    private static final byte[] GET = new KvCommand.Get("k").encode();

    /**
     * The Ready contract (core ReadyLoop; etcd-io/raft's Ready): a client's answer depends on its entry, so it
     * leaves only after the fsync that covers the entry. The pass stops at the persist request; nothing is
     * answered until the runner reports the write durable.
     */
    @Test
    void aReplyLeavesOnlyAfterTheFsyncThatCoversItsEntry() {
        DriverCluster cluster = new DriverCluster(1);
        DriverCluster.Node leader = cluster.electFirst();
        assertEquals(Role.LEADER, leader.role());
        assertEquals(1, leader.joins, "a serving replica stands for election when started");
        leader.command(1, PUT, 0);
        leader.driver.ready(cluster.now);
        assertNotNull(leader.driver.persistRequest(), "the put's entry must be persisted first");
        assertTrue(leader.replies.isEmpty(), "no answer before the fsync: " + cluster.trace);
        leader.completePersist();
        assertNull(leader.driver.persistRequest());
        assertEquals(1, leader.replies.size());
        assertEquals(ClientReply.Status.OK.ordinal(), leader.replies.get(0).status());
        int fsync = cluster.trace.lastIndexOf("0 fsync 1");
        assertTrue(fsync >= 0 && fsync < cluster.trace.indexOf("0 reply 1 status 0"), "fsync, then reply: " + cluster.trace);
    }

    /**
     * A runner that passes right after a completion (the server's group loop) runs the after-work (the apply batch,
     * parked reads, watches, gauges) once for both: {@code persistedBeforePass} leaves it to the pass. Before, a turn
     * that completed a persist ran it in {@code persisted} and again in {@code ready}; {@code persisted} alone still
     * runs it (the simulator's runner calls no pass after it).
     */
    @Test
    void aCompletionFollowedByAPassRunsTheAfterWorkOnce() {
        DriverCluster cluster = new DriverCluster(1);
        DriverCluster.Node leader = cluster.electFirst();
        assertEquals(1, afterWorkRuns(cluster, leader, 1, true), "once for the completion and the pass");
        assertEquals(1, leader.replies.size());
        assertEquals(2, afterWorkRuns(cluster, leader, 2, false), "persisted() then ready(): twice, as before");

        // A pass that takes a new Ready needing its own fsync: what the completion released is committed before it.
        leader.command(3, PUT, 0);
        leader.driver.ready(cluster.now);
        int before = leader.commits;
        leader.driver.persistedBeforePass(leader.driver.persistRequest(), cluster.now);
        assertEquals(before, leader.commits, "the after-work waits for the pass");
        leader.command(4, PUT, 0);
        leader.driver.ready(cluster.now);
        assertNotNull(leader.driver.persistRequest(), "the fourth put waits for its fsync");
        assertEquals(before + 1, leader.commits);
        assertEquals(3, leader.replies.size());
    }

    /** A put, its pass, its completion (through {@code persistedBeforePass} or {@code persisted}), a pass: after-work runs. */
    private static int afterWorkRuns(DriverCluster cluster, DriverCluster.Node leader, long requestId, boolean beforePass) {
        leader.command(requestId, PUT, 0);
        leader.driver.ready(cluster.now);
        int before = leader.commits;
        if (beforePass) {
            leader.driver.persistedBeforePass(leader.driver.persistRequest(), cluster.now);
        } else {
            leader.driver.persisted(leader.driver.persistRequest(), cluster.now);
        }
        leader.driver.ready(cluster.now);
        return leader.commits - before;
    }

    /**
     * A leader's Accepts may leave before its own fsync (Raft thesis §10.2.1, the ReadyLoop's one exception);
     * the answer still waits for a quorum of durable acceptances, its own included.
     */
    @Test
    void theLeadersAcceptsLeaveBeforeItsOwnFsyncButTheReplyWaitsForTheQuorum() {
        DriverCluster cluster = new DriverCluster(3);
        DriverCluster.Node leader = cluster.electFirst();
        assertEquals(Role.LEADER, leader.role());
        cluster.trace.clear();
        leader.diskStalled = true;
        leader.command(1, PUT, 0);
        leader.driver.ready(cluster.now);
        assertNotNull(leader.driver.persistRequest());
        assertEquals(List.of("0 send Accept", "0 send Accept"), cluster.trace, "the Accepts left before the fsync");
        assertTrue(leader.replies.isEmpty());
        cluster.deliver(); // The followers accept durably and answer; the leader's own fsync is still outstanding.
        assertTrue(leader.replies.isEmpty(), "no quorum counts the leader before its fsync: " + cluster.trace);
        leader.diskStalled = false;
        leader.completePersist();
        cluster.deliver();
        assertEquals(1, leader.replies.size());
        assertEquals(ClientReply.Status.OK.ordinal(), leader.replies.get(0).status());
    }

    /**
     * LeaseGuard's deferred commit (SIGMOD 2026 §3): a new leader does not commit before the lease of any
     * previous leader may have run out, Δ after it was elected. Under the fake clock the put is answered
     * only once the clock has moved past Δ.
     */
    @Test
    void underALeaderLeaseANewLeaderCommitsOnlyAfterDelta() {
        ReadLease lease = ReadLease.leader("leader-timer", LeaderLeaseConfig.timer(100 * MS, 0));
        DriverCluster cluster = new DriverCluster(1, c -> c.withLease(lease, LeaseClock.NONE));
        DriverCluster.Node leader = cluster.electFirst();
        leader.command(1, PUT, 0);
        leader.pass(true);
        cluster.advance(50 * MS);
        assertTrue(leader.replies.isEmpty(), "committed before Δ ran out: " + cluster.trace);
        for (int i = 0; i < 20 && leader.replies.isEmpty(); i++) {
            cluster.advance(10 * MS);
        }
        assertEquals(1, leader.replies.size(), "committed once Δ ran out: " + cluster.trace);
        assertEquals(ClientReply.Status.OK.ordinal(), leader.replies.get(0).status());
        assertTrue(cluster.now - 1_000_000_000L >= 100 * MS, "not before Δ");
        // A write committed now starts a lease (Δ from its proposal): a read is then answered locally, without an entry.
        leader.command(2, PUT, 0);
        leader.pass(true);
        assertEquals(ClientReply.Status.OK.ordinal(), leader.replies.get(1).status());
        leader.command(3, GET, 0);
        leader.pass(true);
        assertEquals(ClientFrame.SERVED_LEASE, leader.replies.get(2).served(), cluster.trace.toString());
        // A read the client sends through the log is not.
        leader.command(4, GET, ClientFrame.FLAG_THROUGH_LOG);
        leader.pass(true);
        assertEquals(ClientFrame.SERVED_LOG, leader.replies.get(3).served());
    }

    /**
     * The graceful hand-over (LeaseGuard §3, the end-lease entry): once asked, the leader appends the entry
     * with the next pass, and the hand-over is over when it is committed and every peer applied it.
     */
    @Test
    void aRequestedHandOverEndsWhenTheEndLeaseEntryIsCommittedEverywhere() {
        ReadLease lease = ReadLease.leader("leader-timer", LeaderLeaseConfig.timer(100 * MS, 0));
        DriverCluster cluster = new DriverCluster(3, c -> c.withLease(lease, LeaseClock.NONE));
        DriverCluster.Node leader = cluster.electFirst();
        cluster.advance(200 * MS);
        leader.driver.requestHandOver();
        assertFalse(leader.driver.handOverDone());
        for (int i = 0; i < 50 && !leader.driver.handOverDone(); i++) {
            cluster.advance(10 * MS);
        }
        assertTrue(leader.driver.handOverDone(), cluster.trace.toString());
        assertTrue(cluster.now - 1_000_000_000L < 200 * MS + HandOver.BOUND_NANOS, "before the bound");
        // A follower has nothing to hand over.
        cluster.nodes[1].driver.requestHandOver();
        cluster.nodes[1].pass(true);
        assertTrue(cluster.nodes[1].driver.handOverDone());
    }

    /**
     * Moraru's quorum leases (SoCC 2014, §3): a follower that holds a lease on a key answers its linearizable
     * reads locally (the leader's writes to the key wait for every holder), and one that does not hold it
     * refuses, naming the key's holders so the client reads there. Time is the fake clock's: the leases are
     * granted and renewed by the messages of {@link DriverCluster#advance}.
     */
    @Test
    void aFollowerHoldingTheKeysQuorumLeaseReadsLocallyAndAnotherNamesTheHolders() {
        // The server's defaults: t_lease 2 s, guard 500 ms, renewal every 250 ms, grace 500 ms, no drift.
        ReadLease lease = ReadLease.quorum("quorum", QuorumLeaseConfig.quorum(2_000 * MS, 500 * MS, 250 * MS, 500 * MS, 0),
                null);
        DriverCluster cluster = new DriverCluster(3, c -> c.withLease(lease, LeaseClock.NONE));
        DriverCluster.Node leader = cluster.electFirst();
        for (int i = 0; i < 300; i++) {
            cluster.advance(10 * MS); // Guard, grants, renewals: 3 s of fake time.
        }
        leader.command(1, PUT, 0);
        leader.pass(true);
        for (int i = 0; i < 10; i++) {
            cluster.advance(10 * MS);
        }
        assertEquals(ClientReply.Status.OK.ordinal(), leader.replies.get(0).status(), cluster.trace.toString());
        int servedLocally = 0;
        long holders = -1;
        for (int id = 1; id <= 2; id++) {
            DriverCluster.Node follower = cluster.nodes[id];
            follower.command(10 + id, GET, 0);
            follower.pass(true);
            ClientFrame.Response r = follower.replies.get(follower.replies.size() - 1);
            if (r.status() == ClientReply.Status.OK.ordinal()) {
                assertEquals(ClientFrame.SERVED_LEASE, r.served(), "answered under its lease");
                servedLocally |= 1 << id;
            } else {
                assertEquals(ClientReply.Status.NOT_LEADER.ordinal(), r.status());
                holders = ByteBuffer.wrap(r.result()).getLong();
                assertEquals(0, holders & (1L << id), "a refusing follower does not hold the key");
            }
        }
        assertTrue(servedLocally != 0, "a majority holds every key, so a follower among them reads locally");
        if (holders >= 0) {
            assertEquals(servedLocally, holders & servedLocally, "the refusal names the follower that read locally");
        }
    }

    /**
     * Repair after mid-log corruption: a replica whose log lost accepted entries must not vote in phase 1 (a
     * Promise vouches for a durable log it no longer has) nor stand for election, until a leader of a higher
     * ballot, elected without it, has brought it back past that leader's commit point as first heard.
     */
    @Test
    void aRepairingReplicaNeitherVotesNorStandsUntilItCaughtUpWithANewLeader() {
        DriverCluster cluster = new DriverCluster(3, c -> c, 2);
        DriverCluster.Node damaged = cluster.nodes[2];
        assertEquals(ClientFrame.GroupStatus.REPAIRING, damaged.driver.status().state());
        assertEquals(0, damaged.joins, "out of the election while repairing");
        DriverCluster.Node leader = cluster.electFirst();
        assertEquals(Role.LEADER, leader.role());
        assertFalse(cluster.trace.contains("2 send Promise"), "no vote from a damaged log: " + cluster.trace);
        assertTrue(cluster.trace.contains("1 send Promise"));
        leader.command(1, PUT, 0);
        leader.pass(true);
        for (int i = 0; i < 20 && damaged.repairsFinished == 0; i++) {
            cluster.advance(10 * MS);
        }
        assertEquals(1, damaged.repairsFinished, "repaired once it applied the new leader's commit point");
        assertEquals(ClientFrame.GroupStatus.SERVING, damaged.driver.status().state());
        assertEquals(1, damaged.joins, "stands for election again");
    }

    /** Waiters are bounded: past {@code maxWaiters} a command is answered BUSY at once, not queued. */
    @Test
    void pastTheWaiterBoundACommandIsAnsweredBusy() {
        DriverCluster cluster = new DriverCluster(1, c -> new GroupDriverConfig(c.group(), c.replica(), c.coding(),
                c.lease(), c.leaseClock(), 1, c.metrics()));
        DriverCluster.Node leader = cluster.electFirst();
        leader.command(1, PUT, 0);
        leader.command(2, PUT, 0);
        assertEquals(1, leader.replies.size());
        assertEquals(2, leader.replies.get(0).requestId());
        assertEquals(ClientReply.Status.BUSY.ordinal(), leader.replies.get(0).status());
        leader.pass(true);
        assertEquals(ClientReply.Status.OK.ordinal(), leader.replies.get(1).status());
    }

    /** A failed group answers every waiting request (no serving group here) and leaves the election. */
    @Test
    void aFailedGroupAnswersEveryWaiterAndLeavesTheElection() {
        DriverCluster cluster = new DriverCluster(1);
        DriverCluster.Node leader = cluster.electFirst();
        leader.command(1, PUT, 0);
        leader.driver.ready(cluster.now); // The persist never completes: the disk failed.
        List<ClientFrame.GroupStatus> published = new ArrayList<>();
        leader.driver.fail(s -> {
            published.add(s);
            assertTrue(leader.replies.isEmpty(), "the failed status is published before any waiter is answered");
        });
        assertEquals(ClientFrame.GroupStatus.FAILED, published.get(0).state());
        assertEquals(1, leader.leaves);
        assertEquals(1, leader.replies.size());
        assertEquals(ClientFrame.STATUS_NO_GROUP, leader.replies.get(0).status());
        assertEquals(ClientFrame.GroupStatus.FAILED, leader.driver.status().state());
    }

    /**
     * A watch long-poll with no events is held until its wait ends, measured by the time passed in; an event
     * applied meanwhile answers it at once.
     */
    @Test
    void aWatchPollIsHeldUntilAnEventOrItsWaitEnds() {
        DriverCluster cluster = new DriverCluster(1);
        DriverCluster.Node leader = cluster.electFirst();
        leader.command(1, new KvCommand.Put("w", new byte[] {1}).encode(), 0);
        leader.pass(true);
        long from = leader.replies.get(0).slot() + 1; // After the put's event: nothing to report yet.
        leader.replies.clear();
        leader.step(new DriverInput.WatchPoll(new ClientFrame.WatchPoll(1,
                WatchCodec.encode(new WatchCodec.Query("w", false, from, 0, 10, 50))), leader.responder()));
        leader.pass(true);
        cluster.advance(49 * MS);
        assertTrue(leader.replies.isEmpty(), "held within its wait");
        cluster.advance(MS);
        assertEquals(1, leader.replies.size(), "answered when its wait ended");
        assertTrue(WatchCodec.decodeBatch(leader.replies.get(0).result()).events().isEmpty());

        leader.step(new DriverInput.WatchPoll(new ClientFrame.WatchPoll(2,
                WatchCodec.encode(new WatchCodec.Query("w", false, from, 0, 10, 50))), leader.responder()));
        leader.pass(true);
        leader.command(3, new KvCommand.Put("w", new byte[] {2}).encode(), 0);
        leader.pass(true);
        assertEquals(List.of(2L, 3L), leader.replies.subList(1, 3).stream().map(ClientFrame.Response::requestId)
                .sorted().toList(), "the event answered the poll without waiting");
        assertEquals(1, WatchCodec.decodeBatch(leader.replies.stream().filter(r -> r.requestId() == 2).findFirst()
                .orElseThrow().result()).events().size());
    }

    /** A STALE read is answered from the local state, on a follower too, marked as served locally. */
    @Test
    void aStaleReadIsAnsweredFromTheLocalStateOnAFollower() {
        DriverCluster cluster = new DriverCluster(3);
        DriverCluster.Node leader = cluster.electFirst();
        leader.command(1, PUT, 0);
        leader.pass(true);
        cluster.deliver();
        cluster.advance(MS); // The followers learn the commit and apply.
        DriverCluster.Node follower = cluster.nodes[1];
        follower.step(new DriverInput.StaleRead(new ClientFrame.StaleRead(9, GET), true, follower.responder()));
        assertEquals(1, follower.replies.size());
        ClientFrame.Response r = follower.replies.get(0);
        assertEquals(ClientReply.Status.OK.ordinal(), r.status());
        assertEquals(ClientFrame.SERVED_LOCAL, r.served());
        assertEquals(0, r.leaderHint());
    }
}
