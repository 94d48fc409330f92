package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.coordination.NodeIncarnation;
import io.synod.coordination.Placement;
import io.synod.coordination.ReplicaMap;
import io.synod.core.paxos.GroupMembership;
import io.synod.core.paxos.Role;
import io.synod.engine.MembershipAdmin;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The checks of a replica move (docs/membership.md, "Moving a replica"), each refusal with its one line. */
class ReplicaMovesTest {
    private static final Placement ZONED = new Placement(4, 3, List.of("a", "b", "c", "a"),
            List.of(List.of(0, 1, 2)), List.of(List.of(0, 1, 2)));
    private static final ReplicaMap MAP = ReplicaMap.identity(0, 4);
    private static final GroupMembership ON_012 = GroupMembership.ofVoters(63, 0b0111);
    private static final long ALL = -1L >>> 1;

    @Test
    void aMoveIsRefusedWithTheReasonAndAllowedOtherwise() {
        Placement plain = new Placement(4, 3, List.of(), ZONED.initial(), ZONED.current());
        assertNull(ReplicaMoves.refusal(plain, 0, 1, 3, ON_012, MAP, ALL), "1 -> 3 without zones");
        assertNull(ReplicaMoves.refusal(ZONED, 0, 0, 3, ON_012, MAP, ALL), "0 -> 3 stays in zone a");
        assertRefused(ReplicaMoves.refusal(ZONED, 0, 1, 3, ON_012, MAP, ALL), "zone a already holds a replica of group 0");
        assertRefused(ReplicaMoves.refusal(plain, 0, 1, 2, ON_012, MAP, ALL), "node 2 already hosts a replica of group 0");
        Placement fiveNodes = new Placement(5, 3, List.of(), ZONED.initial(), ZONED.current());
        assertRefused(ReplicaMoves.refusal(fiveNodes, 0, 3, 4, ON_012, ReplicaMap.identity(0, 5), ALL),
                "node 3 hosts no replica of group 0");
        assertRefused(ReplicaMoves.refusal(plain, 0, 1, 1, ON_012, MAP, ALL), "two different ids");
        assertRefused(ReplicaMoves.refusal(plain, 0, 1, 7, ON_012, MAP, ALL), "two different ids");
        GroupMembership learning = ON_012.withLearner(3);
        assertRefused(ReplicaMoves.refusal(plain, 0, 1, 3, learning, MAP, ALL), "a move is already in flight for group 0");
        GroupMembership elsewhere = ON_012.withLearner(3).promoted(3).without(1);
        assertRefused(ReplicaMoves.refusal(plain, 0, 0, 1, elsewhere, MAP, ALL), "node 1 already hosts");
        Placement movedBack = plain.moved(0, 1, 3);
        // Back onto node 1, whose id 1 was removed (M7): allowed; the leader gives node 1 a new id before recording it.
        assertNull(ReplicaMoves.refusal(movedBack, 0, 3, 1, elsewhere, MAP, ALL), "a move back takes a new id");
        assertEquals(1, ReplicaMoves.retiredIdOf(1, elsewhere, MAP));
        assertEquals(-1, ReplicaMoves.retiredIdOf(0, elsewhere, MAP), "node 0's id votes");
        ReplicaMap renewed = MAP.withIncarnation(new NodeIncarnation(1, ReplicaMoves.moveBackMark(0, 1)), 63);
        assertEquals(5, renewed.currentId(1), "node 1's next id in a map of 4 nodes");
        assertEquals(-1, ReplicaMoves.retiredIdOf(1, elsewhere, renewed), "the new id was never removed");
        assertTrue(MembershipRequests.restartHint(0, 1, renewed, elsewhere).contains("restart node 1"));
        assertEquals("", MembershipRequests.restartHint(0, 1, renewed, elsewhere.withLearner(5).promoted(5)),
                "no hint once the new id votes");
        assertEquals("", MembershipRequests.restartHint(0, 3, renewed, elsewhere), "node 3's id is its first");
        assertEquals(1, ReplicaMoves.movedBackFrom(renewed, 5), "id 5 replaced node 1's id 1");
        assertEquals(-1, ReplicaMoves.movedBackFrom(renewed, 1), "id 1 is node 1's first");
        // How admin status names what holds each id: a move back by the id it replaced, not by its mark as a UUID.
        assertEquals("moved back in place of replica 1", MembershipRequests.incarnation(renewed, 5));
        assertEquals("incarnation first", MembershipRequests.incarnation(renewed, 1));
        UUID wiped = UUID.fromString("0f15b14c-dcfc-4934-b75a-0fafdec49bd2");
        ReplicaMap rejoined = MAP.withIncarnation(new NodeIncarnation(2, wiped), 63);
        assertEquals(-1, ReplicaMoves.movedBackFrom(rejoined, 6), "a wiped node's new id is no move back");
        assertEquals("incarnation " + wiped, MembershipRequests.incarnation(rejoined, 6));
        String status = MembershipRequests.describe(0, renewed, new MembershipAdmin.Answer(-1, false, "", Role.LEADER, 0,
                elsewhere.withLearner(5), elsewhere.withLearner(5), 40, new long[] {40, 12, 40, 40, 0, 38}, 0));
        assertTrue(status.contains("learners: 5 (node 1, moved back in place of replica 1, applied 38, 2 behind)")
                && status.contains("retired: 1 (node 1, incarnation first)") && !status.contains("-"), status);
        assertTrue(!ReplicaMoves.moveBackMark(0, 1).equals(ReplicaMoves.moveBackMark(1, 1))
                && !ReplicaMoves.moveBackMark(0, 1).equals(ReplicaMoves.moveBackMark(0, 5)), "one mark per group and id");
        assertTrue(ReplicaMoves.settled(movedBack, 0, elsewhere, MAP));
        assertTrue(!ReplicaMoves.settled(plain, 0, elsewhere, MAP), "the membership is not where the placement is");
        assertTrue(ReplicaMoves.recorded(movedBack, 0, 1, 3) && !ReplicaMoves.recorded(plain, 0, 1, 3));
        // Strict reconfiguration check: with node 2 silent, moving 1 away leaves {0, 2, 3} with only 0 heard.
        assertRefused(ReplicaMoves.refusal(plain, 0, 1, 3, ON_012, MAP, 0b0011), "strict reconfiguration check");
        assertNull(ReplicaMoves.refusal(plain, 0, 2, 3, ON_012, MAP, 0b0011), "moving the silent one away leaves {0, 1}");
    }

    @Test
    void removeNodeTakesTheNodeWithFewestReplicasThatKeepsTheZoneRule() {
        Placement two = new Placement(5, 3, List.of(), List.of(List.of(0, 1, 2), List.of(0, 1, 3)),
                List.of(List.of(0, 1, 2), List.of(0, 1, 3)));
        ReplicaMap five = ReplicaMap.identity(0, 5);
        assertEquals(4, ReplicaMoves.target(two, 0, 0, ON_012, five), "node 4 hosts nothing, node 3 one group");
        assertEquals(3, ReplicaMoves.target(two, 0, 0, ON_012.withLearner(4).promoted(4).without(4), five),
                "node 4's id was removed before");
        assertEquals(3, ReplicaMoves.target(ZONED, 0, 0, ON_012, MAP), "node 3 is in node 0's zone");
        assertEquals(-1, ReplicaMoves.target(ZONED, 0, 1, ON_012, MAP), "node 3 would share zone a with node 0");
        // Node 3's id was removed: node 4 hosts fewer anyway. Node 4's removed too: the fewest of the two, under a new id.
        GroupMembership left3 = ON_012.withLearner(3).promoted(3).without(3);
        assertEquals(4, ReplicaMoves.target(two, 0, 0, left3, five));
        Placement fourFull = new Placement(5, 3, List.of(), two.initial(), List.of(List.of(0, 1, 2), List.of(0, 1, 4)));
        assertEquals(4, ReplicaMoves.target(fourFull, 0, 0, left3, five),
                "node 3 hosts no more than node 4 but needs a new id: node 4 first");
        GroupMembership left34 = left3.withLearner(4).promoted(4).without(4);
        assertEquals(3, ReplicaMoves.target(fourFull, 0, 0, left34, five), "both need a new id: the fewest replicas");
    }

    @Test
    void aNodeRemovedFromTheNodeSetTakesNoReplicaAndIsNotCountedForBalance() {
        // Four groups of three on nodes 1, 2, 3 after node 0 was emptied: balanced without node 0.
        List<List<Integer>> on123 = List.of(List.of(1, 2, 3), List.of(1, 2, 3), List.of(1, 2, 3), List.of(1, 2, 3));
        Placement emptied = new Placement(4, 3, List.of(), on123, on123);
        GroupMembership on123m = GroupMembership.ofVoters(63, 0b1110);
        assertEquals(0, ReplicaMoves.target(emptied, 0, 1, on123m, MAP), "node 0 is still in the node set: a target");
        assertEquals(3, PlacementPlanner.movesToBalance(emptied), "node 0 counts as a node to fill (3 each on 4 nodes)");
        Placement removed = emptied.withRemoved(0);
        assertEquals(-1, ReplicaMoves.target(removed, 0, 1, on123m, MAP), "a removed node is never a target");
        assertEquals(0, PlacementPlanner.movesToBalance(removed), "three replicas on each of the three nodes left");
        assertNull(ReplicaMoves.rebalance(removed, 0, on123m, MAP));
        assertRefused(ReplicaMoves.refusal(removed, 0, 1, 0, on123m, MAP, ALL), "node 0 was removed from the cluster's node set");
        // Five nodes, node 4 removed: the rebalance fills node 3, not node 4.
        Placement five = new Placement(5, 3, List.of(), List.of(List.of(0, 1, 2), List.of(0, 1, 2)),
                List.of(List.of(0, 1, 2), List.of(0, 1, 2))).withRemoved(4);
        assertEquals(3, ReplicaMoves.target(five, 0, 0, ON_012, ReplicaMap.identity(0, 5)));
        assertEquals(1, PlacementPlanner.movesToBalance(five), "6 replicas on 4 nodes: one move onto node 3 (not 2 on 5)");
    }

    private static void assertRefused(String reason, String expected) {
        assertTrue(reason != null && reason.contains(expected) && !reason.contains("\n"), reason);
    }
}
