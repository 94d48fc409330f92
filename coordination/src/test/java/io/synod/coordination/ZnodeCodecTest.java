package io.synod.coordination;

import static io.synod.coordination.ShardMapTest.assertMessage;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ZnodeCodecTest {

    @Test
    void roundTripsEveryZnodeFormat() {
        MemberInfo member = new MemberInfo(3, "10.0.0.3:7100", "10.0.0.3:7200", "eu-west-1a", "0.1.0",
                Map.of(0, new GroupProgress(4, 1200), 2, new GroupProgress(1, 7)));
        assertEquals(member, ZnodeCodec.decodeMember(ZnodeCodec.encodeMember(member)));
        EpochRecord epoch = new EpochRecord(17, 2);
        assertEquals(epoch, ZnodeCodec.decodeEpoch(ZnodeCodec.encodeEpoch(epoch)));
        GroupConfig config = new GroupConfig(3, List.of(0, 1, 2, 3, 4), 1, 3, 4096, LeaseMode.QUORUM);
        assertEquals(config, ZnodeCodec.decodeGroupConfig(ZnodeCodec.encodeGroupConfig(config)));
        ClusterSpec spec = ClusterSpec.defaults(5).withGroups(8);
        assertEquals(spec, ZnodeCodec.decodeClusterSpec(ZnodeCodec.encodeClusterSpec(spec)));
    }

    @Test
    void malformedZnodesFailWithTheFieldNamed() {
        byte[] epoch = ZnodeCodec.encodeEpoch(new EpochRecord(5, 1));
        assertMessage(() -> ZnodeCodec.decodeEpoch(Arrays.copyOf(epoch, 9)), "epoch: truncated at allocator");
        byte[] negative = epoch.clone();
        ByteBuffer.wrap(negative).putLong(1, -3);
        assertMessage(() -> ZnodeCodec.decodeEpoch(negative), "epoch: epoch -3 outside");

        byte[] member = ZnodeCodec.encodeMember(MemberInfo.of(1, "h:1", "h:2", "z", "v"));
        byte[] badUtf8 = member.clone();
        badUtf8[1 + 4 + 2] = (byte) 0xff; // first byte of the peer address
        assertMessage(() -> ZnodeCodec.decodeMember(badUtf8), "member: peer address is not valid UTF-8");
        byte[] longString = member.clone();
        ByteBuffer.wrap(longString).putShort(5, (short) 60000);
        assertMessage(() -> ZnodeCodec.decodeMember(longString), "peer address length 60000 exceeds 255");

        GroupConfig config = new GroupConfig(0, List.of(0, 1, 2), 1, 1, 0, LeaseMode.LEADER);
        byte[] cfg = ZnodeCodec.encodeGroupConfig(config);
        byte[] badF = cfg.clone();
        ByteBuffer.wrap(badF).putInt(1 + 4 + 4 + 12, 2);
        assertMessage(() -> ZnodeCodec.decodeGroupConfig(badF), "group config: group 0: F must be 0..1 for N=3, got 2");
        byte[] badMode = cfg.clone();
        badMode[badMode.length - 13] = 9; // the mode byte, before the three i32 of the lease timing
        assertMessage(() -> ZnodeCodec.decodeGroupConfig(badMode), "lease mode 9 unknown");
        byte[] manyMembers = cfg.clone();
        ByteBuffer.wrap(manyMembers).putInt(5, 1_000_000);
        assertMessage(() -> ZnodeCodec.decodeGroupConfig(manyMembers), "member count 1000000 outside 1..63");

        NodeIncarnation incarnation = new NodeIncarnation(7, new java.util.UUID(-1L, 42L));
        byte[] inc = ZnodeCodec.encodeIncarnation(incarnation);
        assertEquals(incarnation, ZnodeCodec.decodeIncarnation(inc));
        assertMessage(() -> ZnodeCodec.decodeIncarnation(Arrays.copyOf(inc, 13)), "incarnation: truncated at id low bits");
        assertMessage(() -> ZnodeCodec.decodeIncarnation(Arrays.copyOf(inc, 22)), "incarnation: 1 unexpected trailing bytes");
        byte[] badNode = inc.clone();
        ByteBuffer.wrap(badNode).putInt(1, 63);
        assertMessage(() -> ZnodeCodec.decodeIncarnation(badNode), "incarnation: node id 63 outside");
        byte[] badFormat = inc.clone();
        badFormat[0] = 2;
        assertMessage(() -> ZnodeCodec.decodeIncarnation(badFormat), "incarnation: unsupported format version 2");
    }

    @Test
    void leaseTimingRoundTripsAndFormatOneStillReads() {
        ClusterSpec timer = ClusterSpec.defaults(3).withLease(LeaseMode.LEADER_TIMER, new LeaseTiming(250, 777, 20_000));
        assertEquals(new LeaseTiming(250, 0, 20_000), timer.leaseTiming(), "the clock bound is not a timer lease's");
        assertEquals(timer, ZnodeCodec.decodeClusterSpec(ZnodeCodec.encodeClusterSpec(timer)));
        assertEquals(timer.groupConfig(1), ZnodeCodec.decodeGroupConfig(ZnodeCodec.encodeGroupConfig(timer.groupConfig(1))));
        ClusterSpec none = ClusterSpec.defaults(3).withLease(LeaseMode.NONE, new LeaseTiming(250, 777, 20_000));
        assertEquals(LeaseTiming.NONE, none.leaseTiming());
        // A format 1 spec (written before the timing existed) reads with the mode's default timing.
        byte[] v2 = ZnodeCodec.encodeClusterSpec(ClusterSpec.defaults(3));
        byte[] v1 = Arrays.copyOf(v2, v2.length - 12);
        v1[0] = 1;
        assertEquals(ClusterSpec.defaults(3), ZnodeCodec.decodeClusterSpec(v1));
        byte[] v3 = v2.clone();
        v3[0] = 3;
        assertMessage(() -> ZnodeCodec.decodeClusterSpec(v3), "unsupported format version 3");
        byte[] noDelta = v2.clone();
        ByteBuffer.wrap(noDelta).putInt(noDelta.length - 12, 0);
        assertMessage(() -> ZnodeCodec.decodeClusterSpec(noDelta), "lease mode LEADER needs a lease delta > 0 ms");
        assertMessage(() -> new GroupConfig(0, List.of(0, 1, 2), 1, 1, 0, LeaseMode.NONE, new LeaseTiming(5, 0, 0)),
                "has parameters lease mode NONE does not use");
    }

    @Test
    void quorumAutoIsANewModeNumberAndOlderModeNumbersKeepTheirMeaning() {
        // Specs are stored with the mode's ordinal: a new mode goes last, so a spec written before it reads the same.
        assertEquals(List.of(LeaseMode.NONE, LeaseMode.LEADER, LeaseMode.QUORUM, LeaseMode.MEGASTORE, LeaseMode.LEADER_TIMER,
                LeaseMode.QUORUM_AUTO), List.of(LeaseMode.values()));
        ClusterSpec auto = ClusterSpec.defaults(3).withLease(LeaseMode.QUORUM_AUTO, new LeaseTiming(2000, 777, 20_000));
        assertEquals(new LeaseTiming(2000, 0, 20_000), auto.leaseTiming(), "t_lease and drift only, like QUORUM");
        byte[] encoded = ZnodeCodec.encodeClusterSpec(auto);
        assertEquals(auto, ZnodeCodec.decodeClusterSpec(encoded));
        assertEquals(5, encoded[encoded.length - 13], "QUORUM_AUTO is stored as mode 5");
    }

    @Test
    void configAndSpecValidateTheirQuorumArithmetic() {
        assertMessage(() -> new GroupConfig(0, List.of(0, 1, 2, 3, 4), 1, 4, 0, LeaseMode.NONE),
                "coding data shards X must be 1..3 for N=5 F=1, got 4");
        assertMessage(() -> new GroupConfig(0, List.of(2, 1), 0, 1, 0, LeaseMode.NONE), "strictly increasing");
        assertMessage(() -> ClusterSpec.defaults(3).withGroups(0), "groups must be 1..256");
        assertEquals(2, new GroupConfig(0, List.of(0, 1, 2), 1, 1, 0, LeaseMode.NONE).readQuorum());
        assertMessage(() -> new ClusterPaths("a/b"), "cluster name may hold only");
    }
}
