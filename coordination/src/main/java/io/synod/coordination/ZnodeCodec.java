package io.synod.coordination;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Binary encodings of the znodes other than the shard map (which has its own, {@link
 * ShardMap#encode}). Each starts with a format version byte; all integers are big-endian; strings
 * are u16-length-prefixed UTF-8. Every decode is length-checked and fails with a {@link
 * MetadataFormatException} naming the structure and the field.
 */
public final class ZnodeCodec {

    public static final int EPOCH_FORMAT = 1;
    public static final int MEMBER_FORMAT = 1;
    /** Format 2 added the lease timing; format 1 (no timing: the mode's defaults) is still read. */
    public static final int GROUP_CONFIG_FORMAT = 2;
    public static final int CLUSTER_SPEC_FORMAT = 2;
    public static final int INCARNATION_FORMAT = 1;
    public static final int REPLICA_MAP_FORMAT = 1;
    public static final int PLACEMENT_FORMAT = 1;
    /** The placement with the addresses of nodes that joined the running cluster; written only when one has. */
    public static final int PLACEMENT_JOINED_FORMAT = 2;
    /** The placement with the nodes removed from the node set as well; written only when one was. */
    public static final int PLACEMENT_REMOVED_FORMAT = 3;

    /** Longest address, zone or version string, bytes. */
    public static final int MAX_STRING_BYTES = 255;

    private ZnodeCodec() {}

    /** {@code u8 format=1, i64 epoch, i32 allocatedBy} (13 bytes). */
    public static byte[] encodeEpoch(EpochRecord record) {
        return new ZnodeWriter().u8(EPOCH_FORMAT).i64(record.epoch()).i32(record.allocatedBy()).toByteArray();
    }

    public static EpochRecord decodeEpoch(byte[] bytes) {
        ZnodeReader r = new ZnodeReader(bytes, "epoch");
        r.formatVersion(EPOCH_FORMAT);
        long epoch = r.i64("epoch", 0, Long.MAX_VALUE - 1);
        int by = r.i32("allocator", -1, ClusterPaths.MAX_NODE_ID);
        r.end();
        return new EpochRecord(epoch, by);
    }

    /** {@code u8 format=1, i32 nodeId, i64 id most significant bits, i64 id least significant bits} (21 bytes). */
    public static byte[] encodeIncarnation(NodeIncarnation incarnation) {
        return new ZnodeWriter().u8(INCARNATION_FORMAT).i32(incarnation.nodeId())
                .i64(incarnation.id().getMostSignificantBits()).i64(incarnation.id().getLeastSignificantBits())
                .toByteArray();
    }

    public static NodeIncarnation decodeIncarnation(byte[] bytes) {
        ZnodeReader r = new ZnodeReader(bytes, "incarnation");
        r.formatVersion(INCARNATION_FORMAT);
        int nodeId = r.i32("node id", 0, ClusterPaths.MAX_NODE_ID);
        long high = r.i64("id high bits");
        long low = r.i64("id low bits");
        r.end();
        return new NodeIncarnation(nodeId, new UUID(high, low));
    }

    /**
     * {@code u8 format=1, i32 group, i32 nodes, i32 count}, then per id {@code i32 id, i32 node, u8 has incarnation,
     * [i64 high, i64 low]}.
     */
    public static byte[] encodeReplicaMap(ReplicaMap map) {
        ZnodeWriter w = new ZnodeWriter().u8(REPLICA_MAP_FORMAT).i32(map.group()).i32(map.nodes()).i32(map.replicas().size());
        for (ReplicaMap.Replica r : map.replicas()) {
            w.i32(r.id()).i32(r.nodeId()).u8(r.incarnation() == null ? 0 : 1);
            if (r.incarnation() != null) {
                w.i64(r.incarnation().getMostSignificantBits()).i64(r.incarnation().getLeastSignificantBits());
            }
        }
        return w.toByteArray();
    }

    public static ReplicaMap decodeReplicaMap(byte[] bytes) {
        ZnodeReader r = new ZnodeReader(bytes, "replica map");
        r.formatVersion(REPLICA_MAP_FORMAT);
        int group = r.i32("group", 0, Integer.MAX_VALUE);
        int nodes = r.i32("node count", 1, ReplicaMap.MAX_IDS);
        int count = r.i32("replica count", 0, ReplicaMap.MAX_IDS);
        List<ReplicaMap.Replica> replicas = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int id = r.i32("replica id", 0, ReplicaMap.MAX_IDS - 1);
            int node = r.i32("node id", 0, ClusterPaths.MAX_NODE_ID);
            int has = r.u8("incarnation flag");
            if (has > 1) {
                throw new MetadataFormatException("replica map: incarnation flag " + has + " is neither 0 nor 1");
            }
            replicas.add(new ReplicaMap.Replica(id, node, has == 0 ? null : new UUID(r.i64("id high bits"), r.i64("id low bits"))));
        }
        r.end();
        try {
            return new ReplicaMap(group, nodes, replicas);
        } catch (IllegalArgumentException e) {
            throw new MetadataFormatException(e.getMessage());
        }
    }

    /**
     * {@code u8 format=1, i32 nodes, i32 replicas, i32 zone count, zones (str each), i32 groups}, then per group the
     * initial and the current node lists, each {@code i32 count, count x i32 node}. Format 2 (only when a node joined,
     * so a cluster that added none stays readable by builds before it) appends {@code i32 count, count x (i32 id, str
     * address)} of the joined nodes. Format 3 (only when a node was removed from the node set) writes the joined nodes'
     * list even when empty ({@code i32 count} 0) and appends {@code i32 count, count x i32 node} of the removed nodes.
     */
    public static byte[] encodePlacement(Placement p) {
        int format = !p.removed().isEmpty() ? PLACEMENT_REMOVED_FORMAT
                : p.joined().isEmpty() ? PLACEMENT_FORMAT : PLACEMENT_JOINED_FORMAT;
        ZnodeWriter w = new ZnodeWriter().u8(format).i32(p.nodes()).i32(p.replicas()).i32(p.zones().size());
        for (String z : p.zones()) {
            w.utf8(z, MAX_STRING_BYTES, "zone");
        }
        w.i32(p.groups());
        for (int g = 0; g < p.groups(); g++) {
            for (List<Integer> hosts : List.of(p.initial().get(g), p.current().get(g))) {
                w.i32(hosts.size());
                hosts.forEach(w::i32);
            }
        }
        if (format != PLACEMENT_FORMAT) {
            w.i32(p.joined().size());
            p.joined().forEach((id, address) -> w.i32(id).utf8(address, MAX_STRING_BYTES, "address"));
        }
        if (format == PLACEMENT_REMOVED_FORMAT) {
            w.i32(p.removed().size());
            p.removed().forEach(w::i32);
        }
        return w.toByteArray();
    }

    public static Placement decodePlacement(byte[] bytes) {
        ZnodeReader r = new ZnodeReader(bytes, "placement");
        int format = r.u8("format version");
        if (format < PLACEMENT_FORMAT || format > PLACEMENT_REMOVED_FORMAT) {
            throw new MetadataFormatException("placement: unsupported format version " + format + " (this build reads "
                    + PLACEMENT_FORMAT + " to " + PLACEMENT_REMOVED_FORMAT + ")");
        }
        int nodes = r.i32("node count", 1, ClusterPaths.MAX_NODE_ID + 1);
        int replicas = r.i32("replicas", 1, nodes);
        int zoneCount = r.i32("zone count", 0, nodes);
        List<String> zones = new ArrayList<>(zoneCount);
        for (int i = 0; i < zoneCount; i++) {
            zones.add(r.utf8("zone", MAX_STRING_BYTES));
        }
        int groups = r.i32("group count", 0, 1 << 16);
        List<List<Integer>> initial = new ArrayList<>(groups);
        List<List<Integer>> current = new ArrayList<>(groups);
        for (int g = 0; g < groups; g++) {
            for (List<List<Integer>> out : List.of(initial, current)) {
                int count = r.i32("node list length", 1, nodes);
                List<Integer> hosts = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    hosts.add(r.i32("node id", 0, nodes - 1));
                }
                out.add(hosts);
            }
        }
        Map<Integer, String> joined = new TreeMap<>();
        if (format != PLACEMENT_FORMAT) {
            int count = r.i32("joined node count", format == PLACEMENT_JOINED_FORMAT ? 1 : 0, nodes);
            for (int i = 0; i < count; i++) {
                int id = r.i32("joined node id", 1, nodes - 1);
                joined.put(id, r.utf8("address", MAX_STRING_BYTES));
            }
        }
        Set<Integer> removed = new TreeSet<>();
        if (format == PLACEMENT_REMOVED_FORMAT) {
            int count = r.i32("removed node count", 1, nodes);
            for (int i = 0; i < count; i++) {
                removed.add(r.i32("removed node id", 0, nodes - 1));
            }
        }
        r.end();
        try {
            return new Placement(nodes, replicas, zones, initial, current, joined, removed);
        } catch (IllegalArgumentException e) {
            throw new MetadataFormatException(e.getMessage());
        }
    }

    /**
     * {@code u8 format=1, i32 nodeId, str peerAddress, str clientAddress, str zone, str version,
     * i32 groupCount, groupCount x (i32 group, i64 epoch, i64 lastSlot)}, groups increasing.
     */
    public static byte[] encodeMember(MemberInfo m) {
        ZnodeWriter w = new ZnodeWriter().u8(MEMBER_FORMAT).i32(m.nodeId())
                .utf8(m.peerAddress(), MAX_STRING_BYTES, "peer address")
                .utf8(m.clientAddress(), MAX_STRING_BYTES, "client address")
                .utf8(m.zone(), MAX_STRING_BYTES, "zone")
                .utf8(m.version(), MAX_STRING_BYTES, "version");
        Map<Integer, GroupProgress> sorted = new TreeMap<>(m.progress());
        w.i32(sorted.size());
        sorted.forEach((g, p) -> w.i32(g).i64(p.epoch()).i64(p.lastSlot()));
        return w.toByteArray();
    }

    public static MemberInfo decodeMember(byte[] bytes) {
        ZnodeReader r = new ZnodeReader(bytes, "member");
        r.formatVersion(MEMBER_FORMAT);
        int nodeId = r.i32("node id", 0, ClusterPaths.MAX_NODE_ID);
        String peer = r.utf8("peer address", MAX_STRING_BYTES);
        String client = r.utf8("client address", MAX_STRING_BYTES);
        String zone = r.utf8("zone", MAX_STRING_BYTES);
        String version = r.utf8("version", MAX_STRING_BYTES);
        int count = r.i32("progress count", 0, GroupConfig.MAX_GROUPS);
        Map<Integer, GroupProgress> progress = new TreeMap<>();
        int previous = -1;
        for (int i = 0; i < count; i++) {
            int g = r.i32("progress " + i + " group", 0, GroupConfig.MAX_GROUPS - 1);
            if (g <= previous) {
                throw r.error("progress groups must be strictly increasing, got " + g + " after " + previous);
            }
            previous = g;
            long epoch = r.i64("group " + g + " epoch", 0, Long.MAX_VALUE);
            long slot = r.i64("group " + g + " last slot", 0, Long.MAX_VALUE);
            progress.put(g, new GroupProgress(epoch, slot));
        }
        r.end();
        return new MemberInfo(nodeId, peer, client, zone, version, progress);
    }

    /**
     * {@code u8 format=2, i32 group, i32 memberCount, memberCount x i32 nodeId, i32 f,
     * i32 codingDataShards, i32 codingThresholdBytes, u8 leaseMode ordinal, i32 leaseDeltaMillis,
     * i32 clockBoundMicros, i32 driftPpm} (format 1 ends after the lease mode).
     */
    public static byte[] encodeGroupConfig(GroupConfig c) {
        return encodeReplicated(GROUP_CONFIG_FORMAT, c.group(), c.members(), c.f(), c.codingDataShards(),
                c.codingThresholdBytes(), c.leaseMode(), c.leaseTiming());
    }

    public static GroupConfig decodeGroupConfig(byte[] bytes) {
        return decodeReplicated(bytes, "group config", GROUP_CONFIG_FORMAT, "group", 0, GroupConfig.MAX_GROUPS - 1,
                GroupConfig::new);
    }

    /**
     * {@code u8 format=2, i32 groups, i32 memberCount, memberCount x i32 nodeId, i32 f,
     * i32 codingDataShards, i32 codingThresholdBytes, u8 leaseMode ordinal, i32 leaseDeltaMillis,
     * i32 clockBoundMicros, i32 driftPpm} (format 1 ends after the lease mode).
     */
    public static byte[] encodeClusterSpec(ClusterSpec s) {
        return encodeReplicated(CLUSTER_SPEC_FORMAT, s.groups(), s.members(), s.f(), s.codingDataShards(),
                s.codingThresholdBytes(), s.leaseMode(), s.leaseTiming());
    }

    public static ClusterSpec decodeClusterSpec(byte[] bytes) {
        return decodeReplicated(bytes, "cluster spec", CLUSTER_SPEC_FORMAT, "groups", 1, ShardMap.MAX_UNIFORM_GROUPS,
                ClusterSpec::new);
    }

    /** The constructor shape GroupConfig and ClusterSpec share: one leading int, then the replication fields. */
    @FunctionalInterface
    private interface Replicated<T> {
        T make(int head, List<Integer> members, int f, int codingDataShards, int codingThresholdBytes, LeaseMode mode,
               LeaseTiming timing);
    }

    private static byte[] encodeReplicated(int format, int head, List<Integer> members, int f, int codingDataShards,
                                           int codingThresholdBytes, LeaseMode mode, LeaseTiming timing) {
        ZnodeWriter w = new ZnodeWriter().u8(format).i32(head);
        writeMembers(w, members);
        return w.i32(f).i32(codingDataShards).i32(codingThresholdBytes).u8(mode.ordinal()).i32(timing.deltaMillis())
                .i32(timing.clockBoundMicros()).i32(timing.driftPpm()).toByteArray();
    }

    private static <T> T decodeReplicated(byte[] bytes, String what, int format, String headName, int headMin,
                                          int headMax, Replicated<T> make) {
        ZnodeReader r = new ZnodeReader(bytes, what);
        int version = r.u8("format version");
        if (version != format && version != 1) {
            throw new MetadataFormatException(what + ": unsupported format version " + version + " (this build reads 1 and "
                    + format + ")");
        }
        int head = r.i32(headName, headMin, headMax);
        List<Integer> members = readMembers(r);
        int f = r.i32("f");
        int x = r.i32("coding data shards");
        int threshold = r.i32("coding threshold");
        LeaseMode mode = readLeaseMode(r);
        int[] timing = version == 1 ? null : new int[] {r.i32("lease delta ms"), r.i32("clock bound us"), r.i32("drift ppm")};
        r.end();
        try {
            return make.make(head, members, f, x, threshold, mode, timing == null ? LeaseTiming.defaults(mode)
                    : new LeaseTiming(timing[0], timing[1], timing[2]));
        } catch (IllegalArgumentException e) {
            throw r.error(e.getMessage());
        }
    }

    private static void writeMembers(ZnodeWriter w, List<Integer> members) {
        w.i32(members.size());
        for (int id : members) {
            w.i32(id);
        }
    }

    private static List<Integer> readMembers(ZnodeReader r) {
        int count = r.i32("member count", 1, ClusterPaths.MAX_NODE_ID + 1);
        List<Integer> members = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            members.add(r.i32("member " + i, 0, ClusterPaths.MAX_NODE_ID));
        }
        return members;
    }

    private static LeaseMode readLeaseMode(ZnodeReader r) {
        int ordinal = r.u8("lease mode");
        LeaseMode[] modes = LeaseMode.values();
        if (ordinal >= modes.length) {
            throw r.error("lease mode " + ordinal + " unknown (0.." + (modes.length - 1) + ")");
        }
        return modes[ordinal];
    }
}
