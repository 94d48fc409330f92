package io.synod.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientFrame;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Routing by the placement (docs/membership.md, "Routing by the placement"): which nodes a group's requests go to. */
class PlacementRoutesTest {
    /** Groups of 3 on 4 nodes: group 0 on {0, 1, 2}, group 1 on {1, 2, 3}; version 5. */
    private static final ClientFrame.PlacementReport PLACED = new ClientFrame.PlacementReport(1, 5, 4, 0,
            List.of(0b0111L, 0b1110L));
    private static final Map<Integer, InetSocketAddress> FOUR = new HashMap<>();

    static {
        for (int n = 0; n < 4; n++) {
            FOUR.put(n, new InetSocketAddress("127.0.0.1", 1 + n));
        }
    }

    private static PendingOp op(int group, Consistency consistency, boolean readOnly) {
        PendingOp op = new PendingOp("op", new byte[] {1}, "k".getBytes(StandardCharsets.UTF_8), readOnly, false,
                consistency, Long.MAX_VALUE);
        op.group = group;
        return op;
    }

    @Test
    void aGroupsRequestsGoOnlyToItsHostsWithTheLeaderHintFirst() {
        PlacementRoutes placed = new PlacementRoutes();
        assertTrue(placed.hosts(0, 3), "no placement known: every node hosts every group");
        placed.answer(2, PLACED, 0);
        assertFalse(placed.hosts(0, 3));
        assertTrue(placed.hosts(1, 3) && placed.hosts(7, 3), "a group the report does not cover counts as hosted");
        TargetPicker picker = new TargetPicker();
        for (int attempt = 0; attempt < 8; attempt++) {
            PendingOp write = op(0, Consistency.LINEARIZABLE, false);
            write.attempts = attempt;
            assertTrue(picker.pick(write, FOUR, Map.of(), placed) != 3, "never the spare, attempt " + attempt);
            PendingOp stale = op(1, Consistency.STALE, true);
            assertTrue(picker.pick(stale, FOUR, Map.of(), placed) != 0, "stale reads of group 1 never at node 0");
        }
        assertEquals(3, picker.pick(op(0, Consistency.LINEARIZABLE, false), FOUR, Map.of(0, 3), placed),
                "a leader hint is followed even outside the placement known (a leader moving away)");
        Set<Integer> without = new HashSet<>();
        TargetPicker unplaced = new TargetPicker();
        for (int read = 0; read < 8; read++) {
            without.add(unplaced.pick(op(0, Consistency.STALE, true), FOUR, Map.of()));
        }
        assertTrue(without.contains(3), "the control: without a placement the rotation reaches the spare " + without);
        assertEquals(3, picker.pick(op(0, Consistency.LINEARIZABLE, false), Map.of(3, FOUR.get(3)), Map.of(), placed),
                "none of the group's hosts known: the nodes known are tried");
    }

    @Test
    void notHostedAnswersExcludeTheNodeAndANewerVersionIsAskedFor() {
        PlacementRoutes placed = new PlacementRoutes();
        assertTrue(placed.shouldAsk(0, 0), "the first query goes at once");
        assertFalse(placed.shouldAsk(1, 1), "one in flight at a time");
        placed.answer(0, PLACED, 10);
        assertTrue(placed.settled() && placed.routedTo(0) && !placed.routedTo(1));
        assertFalse(placed.shouldAsk(0, TimeUnit.SECONDS.toNanos(5)), "nothing suggests a newer placement");
        assertFalse(placed.notHosted(0, 1, 5), "the same version: node 1 is only skipped");
        assertFalse(placed.hosts(0, 1));
        assertTrue(placed.notHosted(0, 2, 6), "node 2 knows a newer placement");
        assertFalse(placed.shouldAsk(2, PlacementRoutes.MIN_INTERVAL_NANOS - 1), "not more than once a second");
        assertTrue(placed.shouldAsk(2, PlacementRoutes.MIN_INTERVAL_NANOS));
        ClientFrame.PlacementReport moved = new ClientFrame.PlacementReport(2, 6, 4, 0, List.of(0b1011L, 0b1110L));
        placed.answer(2, moved, 20 + PlacementRoutes.MIN_INTERVAL_NANOS);
        assertEquals(6, placed.version());
        assertTrue(placed.hosts(0, 1) && placed.hosts(0, 3) && !placed.hosts(0, 2), "the new placement replaces the skips");
        placed.noteNode(0, 2);
        assertTrue(placed.shouldAsk(1, TimeUnit.SECONDS.toNanos(10)), "a hint outside the placement asks again");
        placed.answer(1, null, TimeUnit.SECONDS.toNanos(10));
        assertFalse(placed.routedTo(1), "an older server (the connection closed): no routing flag to it");
        placed.noteNode(0, 2);
        assertFalse(placed.shouldAsk(1, TimeUnit.SECONDS.toNanos(20)), "not asked again for a while");
        assertEquals(6, placed.version(), "a failed query keeps the placement known");
    }

    /**
     * A client that prefers node 3 learned a placement in which node 3 hosts only group 1: its reads of group 0 go to the
     * hosts, and once the placement is 10 s old such a read asks for a newer one (a replica may have moved onto node 3,
     * which joined later); the newer placement sends them to node 3. The control: before 10 s nothing is asked.
     */
    @Test
    void aPreferredReaderLeftOutAsksForANewerPlacementAfterAWhile() {
        long[] now = {0};
        PlacementRoutes placed = new PlacementRoutes();
        assertTrue(placed.shouldAsk(0, now[0]));
        placed.answer(0, PLACED, now[0]);
        TargetPicker picker = new TargetPicker(3, () -> now[0]);
        now[0] = PlacementRoutes.PREFERRED_RECHECK_NANOS - 1;
        assertTrue(picker.pick(op(0, Consistency.LINEARIZABLE, true), FOUR, Map.of(), placed) != 3, "node 3 hosts no group 0");
        assertFalse(placed.shouldAsk(0, now[0]), "the placement is younger than 10 s: not asked again");
        now[0] = PlacementRoutes.PREFERRED_RECHECK_NANOS;
        assertTrue(picker.pick(op(0, Consistency.LINEARIZABLE, true), FOUR, Map.of(), placed) != 3);
        assertTrue(placed.shouldAsk(0, now[0]), "10 s on, a read of a group the preferred reader does not host asks again");
        placed.answer(0, new ClientFrame.PlacementReport(2, 6, 4, 0, List.of(0b1011L, 0b1110L)), now[0]);
        assertEquals(3, picker.pick(op(0, Consistency.LINEARIZABLE, true), FOUR, Map.of(), placed),
                "group 0 moved onto node 3: its reads go there first");
        assertTrue(picker.pick(op(1, Consistency.LINEARIZABLE, true), FOUR, Map.of(), placed) == 3);
    }

    @Test
    void adminRequestsCarryTheFlagOnlyToNodesWhoseAnswerNamedTheFeature() {
        PlacementRoutes placed = new PlacementRoutes();
        assertEquals(ClientFrame.FEATURE_ROUTED_ADMIN, placed.featuresFor(0, 0), "a query names the feature");
        placed.answer(0, new ClientFrame.PlacementReport(1, 5, 4, 0, PLACED.hosts(), ClientFrame.FEATURE_ROUTED_ADMIN), 0);
        assertTrue(placed.routedTo(0) && placed.adminRoutedTo(0));
        placed.answer(1, PLACED, 1);
        assertTrue(placed.routedTo(1) && !placed.adminRoutedTo(1), "a server that knows commands' flag only");
        // A server older than the features byte closes the connection on it: asked without it for a while.
        placed.featuresRefused(2, 10);
        assertEquals(0, placed.featuresFor(2, 11));
        assertEquals(ClientFrame.FEATURE_ROUTED_ADMIN, placed.featuresFor(2, 10 + PlacementRoutes.UNANSWERED_FOR_NANOS));
        placed.answer(0, null, 20);
        assertFalse(placed.routedTo(0) || placed.adminRoutedTo(0), "a failed query: no flag to it");
        PendingOp admin = op(0, Consistency.LOG, true);
        admin.admin = new ClientFrame.MembershipRequest(0, 0, ClientFrame.MEMBERSHIP_STATUS, -1);
        admin.routed = true;
        assertEquals(ClientFrame.FLAG_ROUTED, ((ClientFrame.MembershipRequest) admin.toFrame()).flags());
        admin.routed = false;
        assertEquals(0, ((ClientFrame.MembershipRequest) admin.toFrame()).flags());
    }
}
