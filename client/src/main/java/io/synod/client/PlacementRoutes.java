package io.synod.client;

import io.synod.protocol.ClientFrame;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The placement as this client knows it (docs/membership.md, "Routing by the placement"): which nodes host each group,
 * learned from the servers ({@link ClientFrame.PlacementQuery}, never from ZooKeeper), so that a group's requests go
 * only to nodes hosting it (the leader hint first) and never cost a retry at a spare. Asked again when a node answers
 * {@link ClientFrame#STATUS_NOT_HOSTED} with a newer version than the one known, when a leader hint names a node this
 * placement does not put in the group, and when a node id beyond it appears. Touched only on the engine's event loop.
 *
 * <p>A server older than the query closes the connection it came on; the engine asks on a connection of its own, so
 * that costs nothing else, and such a node is not asked again for {@link #UNANSWERED_FOR_NANOS}. Commands carry
 * {@link ClientFrame#FLAG_ROUTED} only to nodes that answered (an older server refuses a command with an unknown flag),
 * admin requests only to nodes whose answer named {@link ClientFrame#FEATURE_ROUTED_ADMIN}.
 */
final class PlacementRoutes {
    /** How long a node that did not answer a placement query is not asked again. */
    static final long UNANSWERED_FOR_NANOS = TimeUnit.SECONDS.toNanos(30);
    /**
     * At most one query in flight, and one every this often (each is a connection of its own; meanwhile NOT_HOSTED
     * answers and leader hints route around what the known placement lacks).
     */
    static final long MIN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long a placement that leaves the preferred reader out of a group is trusted before it is asked for again. */
    static final long PREFERRED_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(10);

    private ClientFrame.PlacementReport placement;
    /** Per group, nodes that answered NOT_HOSTED since this placement was learned (their view is newer than ours). */
    private final Map<Integer, Set<Integer>> notHosting = new HashMap<>();
    private final Set<Integer> answered = new HashSet<>();
    /** Nodes whose answer named {@link ClientFrame#FEATURE_ROUTED_ADMIN}: admin requests to them carry the flag. */
    private final Set<Integer> adminRouted = new HashSet<>();
    /** Until when a node that refused a query's features byte is asked without it. */
    private final Map<Integer, Long> plainUntil = new HashMap<>();
    private final Map<Integer, Long> unansweredUntil = new HashMap<>();
    private boolean asking;
    private boolean everAsked;
    private long lastAskNanos;
    private boolean wanted = true;
    /** When the placement known was last answered. */
    private long learnedNanos;

    /** The version of the placement known, or -2 if none was learned yet (a server without a record says -1). */
    long version() {
        return placement == null ? -2 : placement.version();
    }

    /** Whether {@code node} hosts {@code group} as far as this client knows (true while it knows no placement). */
    boolean hosts(int group, int node) {
        Set<Integer> refused = notHosting.get(group);
        return (placement == null || placement.hosts(group, node)) && (refused == null || !refused.contains(node));
    }

    /** Whether a command to {@code node} may carry {@link ClientFrame#FLAG_ROUTED}: it answered a placement query. */
    boolean routedTo(int node) {
        return answered.contains(node);
    }

    /**
     * Whether an admin request ({@link ClientFrame.MembershipRequest}) to {@code node} may carry {@link
     * ClientFrame#FLAG_ROUTED}: its answer to a placement query named {@link ClientFrame#FEATURE_ROUTED_ADMIN}.
     */
    boolean adminRoutedTo(int node) {
        return adminRouted.contains(node);
    }

    /** The features a query to {@code node} names: none for a while after it refused them (an older server). */
    int featuresFor(int node, long nowNanos) {
        Long until = plainUntil.get(node);
        return until != null && nowNanos - until < 0 ? 0 : ClientFrame.FEATURE_ROUTED_ADMIN;
    }

    /** {@code node} closed the connection on a query naming features: ask it without for {@link #UNANSWERED_FOR_NANOS}. */
    void featuresRefused(int node, long nowNanos) {
        plainUntil.put(node, nowNanos + UNANSWERED_FOR_NANOS);
    }

    /** The node answered NOT_HOSTED for {@code group} naming its placement's {@code version}; true if that is newer. */
    boolean notHosted(int group, int node, long version) {
        notHosting.computeIfAbsent(group, g -> new HashSet<>()).add(node);
        if (version > version()) {
            wanted = true;
            return true;
        }
        return false;
    }

    /**
     * The preferred reader ({@code readFrom}) does not host {@code group} in the placement known: once that placement is
     * {@link #PREFERRED_RECHECK_NANOS} old, worth asking again, since replicas may have moved onto it (a node that
     * joined) and nothing else would tell a client that never sends it this group's requests.
     */
    void preferredOutside(int group, int node, long nowNanos) {
        if (placement != null && !placement.hosts(group, node) && nowNanos - learnedNanos >= PREFERRED_RECHECK_NANOS) {
            wanted = true;
        }
    }

    /** A leader hint or a node id this placement does not know: worth asking again. */
    void noteNode(int group, int node) {
        if (placement != null && (node >= placement.nodes() || !placement.hosts(group, node))) {
            wanted = true;
        }
    }

    /** Whether to ask {@code node} now: something suggests a newer placement, nothing is in flight, not too soon. */
    boolean shouldAsk(int node, long nowNanos) {
        Long until = unansweredUntil.get(node);
        if (!wanted || asking || (everAsked && nowNanos - lastAskNanos < MIN_INTERVAL_NANOS)
                || (until != null && nowNanos - until < 0)) {
            return false;
        }
        asking = true;
        everAsked = true;
        lastAskNanos = nowNanos;
        return true;
    }

    /** The answer of {@code node} to a query, or null if its connection closed first (an older server, or down). */
    void answer(int node, ClientFrame frame, long nowNanos) {
        asking = false;
        if (!(frame instanceof ClientFrame.PlacementReport report)) {
            unansweredUntil.put(node, nowNanos + UNANSWERED_FOR_NANOS);
            answered.remove(node);
            adminRouted.remove(node);
            return;
        }
        answered.add(node);
        if ((report.features() & ClientFrame.FEATURE_ROUTED_ADMIN) != 0) {
            adminRouted.add(node);
        } else {
            adminRouted.remove(node);
        }
        unansweredUntil.remove(node);
        if (report.version() >= version()) {
            if (placement == null || report.version() > placement.version()) {
                notHosting.clear();
            }
            placement = report;
            learnedNanos = nowNanos;
            wanted = false;
        }
    }

    /** Whether a query was answered, or failed, at least once (the client's start waits for that, bounded). */
    boolean settled() {
        return everAsked && !asking;
    }

    /** The placement known (tests), or null. */
    ClientFrame.PlacementReport placement() {
        return placement;
    }
}
