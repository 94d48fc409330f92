package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The balancer's rule (LeaderBalancer's Javadoc): move the excess when leading SLACK more than the least loaded. */
class LeaderBalancerTest {
    private static final long COOLDOWN = 3_000_000_000L;
    private static final int[] NONE = {};

    @Test
    void aNodeLeadingEveryGroupMovesItsExcessOverAnEvenShare() {
        // 8 groups, 3 live nodes: an even share is 3, so 5 move, highest-numbered first
        assertArrayEquals(new int[] {7, 6, 5, 4, 3},
                new LeaderBalancer(0, COOLDOWN).decide(new int[] {0, 0, 0, 0, 0, 0, 0, 0}, Set.of(0, 1, 2), 0));
    }

    @Test
    void aDifferenceOfOneIsBalanced() {
        int[] leaders = {0, 1, 2, 0, 1, 2, 0, 1}; // 3, 3, 2: as even as 8 groups on 3 nodes get
        for (int node = 0; node < 3; node++) {
            assertArrayEquals(NONE, new LeaderBalancer(node, COOLDOWN).decide(leaders, Set.of(0, 1, 2), 0));
        }
    }

    @Test
    void aReturningNodeThatLeadsNothingDrawsLeadershipsFromTheBusiest() {
        int[] afterKill = {1, 2, 1, 2, 1, 2, 1, 2}; // node 0 was killed, came back, leads nothing
        assertArrayEquals(new int[] {6}, new LeaderBalancer(1, COOLDOWN).decide(afterKill, Set.of(0, 1, 2), 0));
        assertArrayEquals(new int[] {7}, new LeaderBalancer(2, COOLDOWN).decide(afterKill, Set.of(0, 1, 2), 0));
        assertArrayEquals(NONE, new LeaderBalancer(0, COOLDOWN).decide(afterKill, Set.of(0, 1, 2), 0));
    }

    @Test
    void aDifferenceOfTwoAlwaysMovesOne() {
        int[] leaders = {0, 0, 0, 1, 1, 2}; // 3, 2, 1: the share is 2, node 0 is one over it but two over node 2
        assertArrayEquals(new int[] {2}, new LeaderBalancer(0, COOLDOWN).decide(leaders, Set.of(0, 1, 2), 0));
        assertArrayEquals(NONE, new LeaderBalancer(1, COOLDOWN).decide(leaders, Set.of(0, 1, 2), 0));
    }

    @Test
    void aNodeThatIsNotLiveIsNotCountedAsLeastLoaded() {
        int[] leaders = {1, 2, 1, 2, 1, 2, 1, 2};
        assertArrayEquals(NONE, new LeaderBalancer(1, COOLDOWN).decide(leaders, Set.of(1, 2), 0), "node 0 is down");
    }

    @Test
    void unknownLeadersAndNonMembersAreIgnored() {
        int[] leaders = {-1, 0, 0, 7};
        // node 0 leads 2, nodes 1 and 2 lead 0 (share 1 of the 2 led groups); node 7 is no live member
        assertArrayEquals(new int[] {2},
                new LeaderBalancer(0, COOLDOWN).decide(leaders, Set.of(0, 1, 2), 0));
        assertArrayEquals(NONE, new LeaderBalancer(0, COOLDOWN).decide(leaders, Set.of(1, 2), 0), "not a member yet");
    }

    @Test
    void aLeadershipMovesOnlyToANodeThatHostsTheGroup() {
        int[] leaders = {0, 0, 1, 1, 2, 2}; // node 3 leads nothing
        LeaderBalancer.Hosts notOnNode3 = (g, n) -> n != 3; // 3 hosts no group (groups of 3 replicas on 4 nodes)
        assertArrayEquals(NONE, new LeaderBalancer(0, COOLDOWN).decide(leaders, Set.of(0, 1, 2, 3), notOnNode3, 0));
        // the control: with node 3 hosting every group, node 0 (two over node 3) moves one
        assertArrayEquals(new int[] {1}, new LeaderBalancer(0, COOLDOWN).decide(leaders, Set.of(0, 1, 2, 3), 0));
        // node 3 hosts only group 0: that one moves, group 1 (not on node 3) stays
        LeaderBalancer.Hosts group0On3 = (g, n) -> n != 3 || g == 0;
        assertArrayEquals(new int[] {0}, new LeaderBalancer(0, COOLDOWN).decide(leaders, Set.of(0, 1, 2, 3), group0On3, 0));
    }

    @Test
    void movesAtMostOncePerCooldown() {
        LeaderBalancer b = new LeaderBalancer(0, COOLDOWN);
        int[] leaders = {0, 0, 0, 0, 0, 0};
        assertArrayEquals(new int[] {5, 4, 3, 2}, b.decide(leaders, Set.of(0, 1, 2), 0));
        assertArrayEquals(NONE, b.decide(leaders, Set.of(0, 1, 2), COOLDOWN - 1), "the view has not caught up yet");
        assertArrayEquals(new int[] {5, 4, 3, 2}, b.decide(leaders, Set.of(0, 1, 2), COOLDOWN));
    }

    @Test
    void refusesANonPositiveCooldown() {
        assertThrows(IllegalArgumentException.class, () -> new LeaderBalancer(0, 0));
    }
}
