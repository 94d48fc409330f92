package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.coordination.ClusterSpec;
import io.synod.coordination.LeaseMode;
import io.synod.core.paxos.Coding;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which node settings join an existing cluster spec: a coded node may name other F, X or threshold than the spec
 * (coding changes go through the log), nothing else may differ; the replica's initial coding is the spec's.
 */
class CodingSpecTest {
    static final List<Integer> FIVE = List.of(0, 1, 2, 3, 4);

    static ClusterSpec spec(int groups, List<Integer> members, int f, int x, int threshold, LeaseMode lease) {
        return new ClusterSpec(groups, members, f, x, threshold, lease);
    }

    @Test
    void onlyFXAndThresholdOfACodedClusterMayDiffer() {
        ClusterSpec created = spec(1, FIVE, 1, 3, 4096, LeaseMode.LEADER);
        assertTrue(ClusterSpecs.differsOnlyInCoding(created, spec(1, FIVE, 2, 1, 4096, LeaseMode.LEADER)));
        assertTrue(ClusterSpecs.differsOnlyInCoding(created, spec(1, FIVE, 1, 3, 100, LeaseMode.LEADER)));
        assertFalse(ClusterSpecs.differsOnlyInCoding(created, created), "equal specs need no exception");
        assertFalse(ClusterSpecs.differsOnlyInCoding(created, spec(2, FIVE, 1, 3, 4096, LeaseMode.LEADER)), "another group count");
        assertFalse(ClusterSpecs.differsOnlyInCoding(created, spec(1, List.of(0, 1, 2), 1, 1, 4096, LeaseMode.LEADER)),
                "another N");
        assertFalse(ClusterSpecs.differsOnlyInCoding(created, spec(1, FIVE, 2, 1, 4096, LeaseMode.NONE)), "another lease");
        ClusterSpec off = ClusterSpec.defaults(FIVE).withGroups(1); // F = 2, X = 1: classic majorities (also 5,2,1)
        assertTrue(ClusterSpecs.differsOnlyInCoding(created, off), "a coded cluster takes a node set to majorities");
        assertFalse(ClusterSpecs.differsOnlyInCoding(off, created), "a cluster without coding never gets one");
        // The replica's initial coding comes from the spec, not from the node's setting.
        Coding initial = ClusterSpecs.codingOf(created.groupConfig(0));
        assertEquals(1, initial.failures());
        assertEquals(3, initial.dataShards());
    }
}
