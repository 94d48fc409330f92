package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.coordination.Placement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The placement function against a brute-force search over every placement of small clusters (M <= 5 nodes, G <= 4
 * groups, with and without zones): whenever some placement keeps the zone rule with replica and first-place counts
 * each within one between nodes, the planner's does too; the zone rule holds whenever there are at least N zones.
 */
class PlacementPlannerTest {
    private static final List<List<String>> ZONES_OF_5 = List.of(List.of(), List.of("a", "a", "b", "b", "c"),
            List.of("a", "a", "a", "b", "c"), List.of("a", "b", "a", "b", "a"), List.of("a", "a", "a", "a", "b"));

    @Test
    void matchesBruteForceOnSmallClusters() {
        int cases = 0;
        for (int m = 1; m <= 5; m++) {
            for (int n = 1; n <= m; n++) {
                for (int g = 1; g <= (m == 5 && n == 3 ? 3 : 4); g++) {
                    for (List<String> zones5 : ZONES_OF_5) {
                        List<String> zones = zones5.isEmpty() ? zones5 : zones5.subList(0, m);
                        check(g, n, m, zones);
                        cases++;
                    }
                }
            }
        }
        assertTrue(cases > 100, "cases " + cases);
    }

    @Test
    void largerClustersStayBalanced() {
        for (int m = 3; m <= 9; m++) {
            for (int n = 1; n <= m; n++) {
                for (int g : new int[] {1, 7, 16, 63}) {
                    Placement p = PlacementPlanner.plan(g, n, m, List.of());
                    assertTrue(spread(replicaCounts(p.current(), m)) <= 1, p.toString());
                    assertTrue(spread(firstCounts(p.current(), m)) <= 1, p.toString());
                }
            }
        }
        List<String> zones = List.of("a", "b", "c", "a", "b", "c", "a", "b", "c");
        Placement p = PlacementPlanner.plan(63, 3, 9, zones);
        assertTrue(zoneRuleHolds(p.current(), zones));
        assertTrue(spread(replicaCounts(p.current(), 9)) <= 1 && spread(firstCounts(p.current(), 9)) <= 1, p.toString());
    }

    @Test
    void everyNodeHostsEveryGroupByDefaultAndTheResultIsDeterministic() {
        Placement all = PlacementPlanner.plan(5, 3, 3, List.of());
        for (List<Integer> hosts : all.current()) {
            assertEquals(Set.of(0, 1, 2), new HashSet<>(hosts));
        }
        assertEquals(PlacementPlanner.plan(16, 3, 5, List.of("a", "b", "c", "a", "b")),
                PlacementPlanner.plan(16, 3, 5, List.of("a", "b", "c", "a", "b")));
        assertThrows(IllegalArgumentException.class, () -> PlacementPlanner.plan(3, 4, 3, List.of()));
        assertThrows(IllegalArgumentException.class, () -> PlacementPlanner.plan(3, 2, 3, List.of("a")));
    }

    /** A negative control: the brute-force checks reject a placement that breaks each rule. */
    @Test
    void theChecksCatchAnUnbalancedPlacement() {
        List<List<Integer>> twoOnNodeZero = List.of(List.of(0, 1), List.of(0, 2));
        assertEquals(2, spread(firstCounts(twoOnNodeZero, 3)));
        assertEquals(1, spread(replicaCounts(twoOnNodeZero, 3)));
        assertTrue(!zoneRuleHolds(List.of(List.of(0, 1)), List.of("a", "a", "b")));
    }

    private static void check(int groups, int replicas, int nodes, List<String> zones) {
        Placement p = PlacementPlanner.plan(groups, replicas, nodes, zones);
        String what = groups + " groups of " + replicas + " on " + nodes + " nodes, zones " + zones + ": " + p.current();
        assertEquals(groups, p.groups(), what);
        for (List<Integer> hosts : p.current()) {
            assertEquals(replicas, new HashSet<>(hosts).size(), what);
        }
        assertEquals(p.initial(), p.current(), what);
        boolean zoneRule = PlacementPlanner.distinctZones(zones) >= replicas;
        if (zoneRule) {
            assertTrue(zoneRuleHolds(p.current(), zones), "zone rule broken: " + what);
        }
        if (balancedExists(groups, replicas, nodes, zones, zoneRule)) {
            assertTrue(spread(replicaCounts(p.current(), nodes)) <= 1, "replicas unbalanced: " + what);
            assertTrue(spread(firstCounts(p.current(), nodes)) <= 1, "first places unbalanced: " + what);
        }
    }

    /** Brute force: some choice of sets and first nodes keeps the zone rule with both counts within one. */
    private static boolean balancedExists(int groups, int replicas, int nodes, List<String> zones, boolean zoneRule) {
        List<List<Integer>> subsets = new ArrayList<>();
        for (int mask = 0; mask < 1 << nodes; mask++) {
            if (Integer.bitCount(mask) != replicas) {
                continue;
            }
            List<Integer> hosts = new ArrayList<>();
            for (int n = 0; n < nodes; n++) {
                if ((mask & 1 << n) != 0) {
                    hosts.add(n);
                }
            }
            if (!zoneRule || zoneRuleHolds(List.of(hosts), zones)) {
                subsets.add(hosts);
            }
        }
        int[] choice = new int[groups];
        while (true) {
            List<List<Integer>> sets = new ArrayList<>();
            for (int c : choice) {
                sets.add(subsets.get(c));
            }
            if (spread(replicaCounts(sets, nodes)) <= 1 && leadersBalance(sets, nodes, new int[nodes], 0)) {
                return true;
            }
            int i = 0;
            while (i < groups && ++choice[i] == subsets.size()) {
                choice[i++] = 0;
            }
            if (i == groups) {
                return false;
            }
        }
    }

    private static boolean leadersBalance(List<List<Integer>> sets, int nodes, int[] firsts, int g) {
        if (g == sets.size()) {
            return spread(firsts) <= 1;
        }
        for (int n : sets.get(g)) {
            firsts[n]++;
            boolean ok = leadersBalance(sets, nodes, firsts, g + 1);
            firsts[n]--;
            if (ok) {
                return true;
            }
        }
        return false;
    }

    private static boolean zoneRuleHolds(List<List<Integer>> sets, List<String> zones) {
        for (List<Integer> hosts : sets) {
            Set<String> seen = new HashSet<>();
            for (int n : hosts) {
                if (!seen.add(zones.get(n))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static int[] replicaCounts(List<List<Integer>> sets, int nodes) {
        int[] out = new int[nodes];
        sets.forEach(hosts -> hosts.forEach(n -> out[n]++));
        return out;
    }

    private static int[] firstCounts(List<List<Integer>> sets, int nodes) {
        int[] out = new int[nodes];
        sets.forEach(hosts -> out[hosts.get(0)]++);
        return out;
    }

    private static int spread(int[] counts) {
        int most = Integer.MIN_VALUE;
        int least = Integer.MAX_VALUE;
        for (int c : counts) {
            most = Math.max(most, c);
            least = Math.min(least, c);
        }
        return most - least;
    }
}
