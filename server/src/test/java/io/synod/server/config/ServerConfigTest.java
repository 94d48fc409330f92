package io.synod.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.ReplicaConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerConfigTest {
    @TempDir
    Path dir;

    /** A valid configuration without TLS ({@code insecure=true}): the one base every config test builds on. */
    static final List<String> BASE = List.of("node.id=1", "nodes=0@h:1:2,1@h:3:4,2@h:5:6", "zookeeper.connect=zk:2181",
            "data.dir=/tmp/x", "insecure=true");

    static ServerConfig with(String... more) throws ConfigException {
        List<String> all = new java.util.ArrayList<>(BASE);
        all.addAll(List.of(more));
        return ServerConfig.load(null, all);
    }

    @Test
    void defaultsAndOverridesApply() throws Exception {
        ServerConfig c = with("groups=8");
        assertEquals(1, c.nodeId());
        assertEquals(3, c.nodes().size());
        assertEquals(8, c.groups());
        assertEquals(10_000, c.zookeeperSessionTimeoutMillis());
        assertEquals(4, c.nodes().get(1).clientPort());
        assertEquals(0, c.groupWorkers(), "0: one worker per processor");
        assertEquals(3, with("group.workers=3").groupWorkers());
        assertEquals(1, c.logShards(), "one log per node unless log.shards says otherwise");
        assertEquals(2, with("log.shards=2").logShards());
        assertEquals(1, with("log.shards=2").toProperties().lines().filter("log.shards=2"::equals).count(), "written back");
    }

    @Test
    void theFileIsReadAndFlagsWin() throws Exception {
        Path f = dir.resolve("s.properties");
        Files.writeString(f, String.join("\n", BASE) + "\ngroups=2\n");
        assertEquals(2, ServerConfig.load(f, List.of()).groups());
        assertEquals(3, ServerConfig.load(f, List.of("groups=3")).groups());
    }

    @Test
    void everyBadValueIsOneLineNamingItsKey() {
        String[][] cases = {
            {"groups=0", "groups"}, {"groups=x", "groups"}, {"node.id=7", "node.id"}, {"nodes=0@h:1", "nodes"},
            {"nodes=0@h:1:2,0@h:3:4", "nodes"}, {"nodes=1@h:1:2", "nodes"}, {"zookeeper.connect=nohost", "zookeeper.connect"},
            {"heartbeat.ms=-1", "heartbeat.ms"}, {"max.frame.bytes=10", "max.frame.bytes"}, {"tpyo=1", "tpyo"},
            {"cluster.name=a b", "cluster.name"}, {"metrics.port=70000", "metrics.port"}, {"data.dir=", "data.dir"},
            {"coding=3,1", "coding: must be off or N,F,X"}, {"coding=5,1,3", "coding: N=5 but nodes lists 3 nodes"},
            {"coding=3,1,2", "coding: 3,1,2: coding needs 1 <= X <= N - 2F = 1, got X=2"},
            {"coding=3,2,1", "2F < N"}, {"coding.threshold.bytes=0", "coding.threshold.bytes"},
            {"group.workers=-1", "group.workers: -1 is outside 0..256"}, {"group.workers=two", "group.workers"},
            {"log.shards=0", "log.shards: 0 is outside 1..256"}, {"log.shards=5", "log.shards (5) must not exceed groups (4)"},
            {"snapshot.every.bytes=100", "snapshot.every.bytes: 100 is outside 4096.."},
            {"log.retain.bytes=-1", "log.retain.bytes: -1 is outside 0.."},
        };
        for (String[] c : cases) {
            ConfigException e = assertThrows(ConfigException.class, () -> with(c[0]), c[0]);
            assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
            assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        }
    }

    @Test
    void missingRequiredKeysAreNamed() {
        ConfigException e = assertThrows(ConfigException.class, () -> ServerConfig.load(null, List.of("node.id=0")));
        assertTrue(e.getMessage().contains("required"), e.getMessage());
    }

    @Test
    void codingIsOffByDefaultAndParsedWhenGiven() throws Exception {
        ServerConfig off = with();
        assertEquals(1, off.coding().dataShards());
        assertEquals(1, off.coding().failures());
        assertFalse(off.coding().explicit());
        List<String> five = List.of("node.id=1", "nodes=0@h:1:2,1@h:3:4,2@h:5:6,3@h:7:8,4@h:9:10",
                "zookeeper.connect=zk:2181", "data.dir=/tmp/x", "insecure=true", "coding=5,1,3", "coding.threshold.bytes=4096");
        ServerConfig c = ServerConfig.load(null, five);
        assertEquals(new ServerConfig.CodingSetting(1, 3, 4096, true), c.coding());
        Path f = dir.resolve("c.properties");
        Files.writeString(f, c.toProperties());
        assertEquals(c, ServerConfig.load(f, List.of()));
    }

    @Test
    void leaseIsNoneByDefaultAndParsedWhenGiven() throws Exception {
        assertEquals(io.synod.coordination.LeaseMode.NONE, with().lease().mode());
        ServerConfig leader = with("lease=leader", "lease.delta.ms=500", "lease.clock.bound.us=2000", "lease.drift.ppm=7");
        assertEquals(io.synod.coordination.LeaseMode.LEADER, leader.lease().mode());
        assertEquals(new io.synod.coordination.LeaseTiming(500, 2000, 0), leader.lease().timing());
        ServerConfig timer = with("lease=leader-timer", "lease.delta.ms=300", "lease.drift.ppm=50000");
        assertEquals(new io.synod.coordination.LeaseTiming(300, 0, 50_000), timer.lease().timing());
        for (ServerConfig c : List.of(leader, timer)) {
            Path f = dir.resolve("lease-" + c.lease().text() + ".properties");
            Files.writeString(f, c.toProperties());
            assertEquals(c, ServerConfig.load(f, List.of()));
        }
        ConfigException bad = assertThrows(ConfigException.class, () -> with("lease=leaders"));
        assertTrue(bad.getMessage().startsWith("lease: must be none, leader, leader-timer, quorum, quorum-auto or megastore"),
                bad.getMessage());
        ConfigException wide = assertThrows(ConfigException.class,
                () -> with("lease=leader", "lease.delta.ms=10", "lease.clock.bound.us=5000"));
        assertTrue(wide.getMessage().startsWith("lease.clock.bound.us: 5000 us of clock error leaves no lease"),
                wide.getMessage());
        ConfigException zero = assertThrows(ConfigException.class, () -> with("lease=leader", "lease.delta.ms=0"));
        assertTrue(zero.getMessage().startsWith("lease.delta.ms: 0 is outside"), zero.getMessage());
    }

    @Test
    void quorumLeasesTakeTheirTimersWithDefaultsAndCheckThem() throws Exception {
        ServerConfig quorum = with("lease=quorum");
        assertEquals(io.synod.coordination.LeaseMode.QUORUM, quorum.lease().mode());
        assertEquals(new io.synod.coordination.LeaseTiming(1000, 0, 10_000), quorum.lease().timing());
        assertEquals(ServerConfig.QuorumTimers.DEFAULTS, quorum.lease().quorum());
        ServerConfig tuned = with("lease=megastore", "lease.delta.ms=2000", "lease.drift.ppm=20000", "lease.guard.ms=300",
                "lease.renew.ms=400", "lease.grace.ms=700");
        assertEquals(io.synod.coordination.LeaseMode.MEGASTORE, tuned.lease().mode());
        assertEquals(new ServerConfig.QuorumTimers(300, 400, 700), tuned.lease().quorum());
        for (ServerConfig c : List.of(quorum, tuned)) {
            Path f = dir.resolve("lease-" + c.lease().text() + ".properties");
            Files.writeString(f, c.toProperties());
            assertEquals(c, ServerConfig.load(f, List.of()));
        }
        // The timers are a quorum-lease matter: other modes keep the defaults whatever is given.
        assertEquals(ServerConfig.QuorumTimers.DEFAULTS, with("lease=leader", "lease.guard.ms=7").lease().quorum());

        ConfigException lapse = assertThrows(ConfigException.class,
                () -> with("lease=quorum", "lease.delta.ms=1000", "lease.renew.ms=500", "lease.guard.ms=490"));
        assertTrue(lapse.getMessage().startsWith("lease.renew.ms + lease.guard.ms (500 + 490 ms) must be shorter than "
                + "t_lease(1 - drift) = 990.0 ms"), lapse.getMessage());
        ConfigException grace = assertThrows(ConfigException.class,
                () -> with("lease=quorum", "heartbeat.ms=100", "lease.grace.ms=100"));
        assertTrue(grace.getMessage().startsWith("lease.grace.ms: 100 ms must exceed heartbeat.ms (100 ms)"),
                grace.getMessage());
        ConfigException zero = assertThrows(ConfigException.class, () -> with("lease=quorum", "lease.guard.ms=0"));
        assertTrue(zero.getMessage().startsWith("lease.guard.ms: 0 is outside"), zero.getMessage());
        ConfigException word = assertThrows(ConfigException.class, () -> with("lease=quorum", "lease.renew.ms=fast"));
        assertTrue(word.getMessage().startsWith("lease.renew.ms: 'fast' is not an integer"), word.getMessage());
    }

    @Test
    void quorumAutoTakesItsAssignmentSettingsWithDefaultsAndRefusesBadOnesByName() throws Exception {
        ServerConfig auto = with("lease=quorum-auto");
        assertEquals(io.synod.coordination.LeaseMode.QUORUM_AUTO, auto.lease().mode());
        assertEquals("quorum-auto", auto.lease().text());
        assertEquals(new io.synod.coordination.LeaseTiming(1000, 0, 10_000), auto.lease().timing());
        assertEquals(ServerConfig.AutoSettings.DEFAULTS, auto.lease().quorum().auto());
        assertEquals(new ServerConfig.AutoSettings(1000, 32, 1024, 1024, 8, 2.0, 4, false), auto.lease().quorum().auto());
        ServerConfig tuned = with("lease=quorum-auto", "lease.delta.ms=2000", "lease.guard.ms=800", "lease.renew.ms=400",
                "lease.grace.ms=800", "lease.auto.period.ms=250", "lease.auto.report.keys=16", "lease.auto.counter.keys=64",
                "lease.auto.max.keys=10", "lease.auto.min.reads=3", "lease.auto.stickiness=1.5",
                "lease.auto.half.life.periods=8", "lease.auto.unlisted=all");
        assertEquals(new ServerConfig.QuorumTimers(800, 400, 800, new ServerConfig.AutoSettings(250, 16, 64, 10, 3, 1.5, 8,
                true)), tuned.lease().quorum());
        for (ServerConfig c : List.of(auto, tuned)) {
            Path f = dir.resolve("auto-" + c.hashCode() + ".properties");
            Files.writeString(f, c.toProperties());
            assertEquals(c, ServerConfig.load(f, List.of()), "printed and read back: " + c.toProperties());
        }
        // The assignment settings matter only to quorum-auto: the static quorum lease keeps the defaults.
        assertEquals(ServerConfig.AutoSettings.DEFAULTS,
                with("lease=quorum", "lease.auto.period.ms=50").lease().quorum().auto());
        // Its timers are checked like quorum's.
        assertMessage("lease.renew.ms + lease.guard.ms (500 + 490 ms) must be shorter than t_lease(1 - drift)",
                "lease=quorum-auto", "lease.renew.ms=500", "lease.guard.ms=490");

        assertMessage("lease: must be none, leader, leader-timer, quorum, quorum-auto or megastore, got 'quorum_auto'",
                "lease=quorum_auto");
        assertMessage("lease.auto.period.ms: 5 is outside 10..600000", "lease=quorum-auto", "lease.auto.period.ms=5");
        assertMessage("lease.auto.period.ms: 'soon' is not an integer", "lease=quorum-auto", "lease.auto.period.ms=soon");
        assertMessage("lease.auto.report.keys: 0 is outside 1..4096", "lease=quorum-auto", "lease.auto.report.keys=0");
        assertMessage("lease.auto.report.keys (64) must be at most lease.auto.counter.keys (32)", "lease=quorum-auto",
                "lease.auto.report.keys=64", "lease.auto.counter.keys=32");
        assertMessage("lease.auto.counter.keys: 70000 is outside 1..65536", "lease=quorum-auto",
                "lease.auto.counter.keys=70000");
        assertMessage("lease.auto.max.keys: 5000 is outside 0..4096", "lease=quorum-auto", "lease.auto.max.keys=5000");
        assertMessage("lease.auto.min.reads: 0 is outside 1..1000000000", "lease=quorum-auto", "lease.auto.min.reads=0");
        assertMessage("lease.auto.stickiness: 'sticky' is not a number", "lease=quorum-auto", "lease.auto.stickiness=sticky");
        assertMessage("lease.auto.stickiness: 0.5 is outside 1..100", "lease=quorum-auto", "lease.auto.stickiness=0.5");
        assertMessage("lease.auto.stickiness: NaN is outside 1..100", "lease=quorum-auto", "lease.auto.stickiness=NaN");
        assertMessage("lease.auto.half.life.periods: 0 is outside 1..1000", "lease=quorum-auto",
                "lease.auto.half.life.periods=0");
        assertMessage("lease.auto.unlisted: must be leader or all, got 'none'", "lease=quorum-auto", "lease.auto.unlisted=none");
        assertMessage("unknown config key 'lease.auto.periods.ms'", "lease=quorum-auto", "lease.auto.periods.ms=100");
        // With coded accepts a configuration entry must stay under the coding threshold (followers read it back).
        assertMessage("lease.auto.max.keys: a configuration of 1024 keys is a 16433-byte entry, at or above "
                + "coding.threshold.bytes (4096): it would be coded and followers could not read it back; list at most 252 keys",
                "lease=quorum-auto", FIVE, "coding=5,1,3", "coding.threshold.bytes=4096", "lease.auto.max.keys=1024");
        assertEquals(LeaseSettings.CONFIGURATION_ENTRY_BYTES + 32, io.synod.leases.LeaseConfiguration.of(1, new long[] {5, 6},
                new long[] {3, 3}).command(7).payload().length, "the entry size the check assumes");
        with("lease=quorum-auto", FIVE, "coding=5,1,3", "coding.threshold.bytes=4096", "lease.auto.max.keys=252");
        with("lease=quorum-auto", FIVE, "coding=5,1,3", "coding.threshold.bytes=4096", "lease.auto.max.keys=1024", "lease=quorum");
    }

    private static final String FIVE = "nodes=0@h:1:2,1@h:3:4,2@h:5:6,3@h:7:8,4@h:9:10";

    /** The configuration {@code more} is refused with a message starting with {@code expected}. */
    private static void assertMessage(String expected, String... more) {
        ConfigException e = assertThrows(ConfigException.class, () -> with(more));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    }

    @Test
    void snapshotsComeBySlotsOrBytesAndTheHeapIsCheckedAgainstTheBytes() throws Exception {
        SnapshotSettings defaults = with().snapshots();
        assertEquals(new SnapshotSettings(10_000, 1_000, 32L << 20, 32L << 20), defaults);
        ReplicaConfig rc = with("snapshot.every.bytes=1048576", "log.retain.bytes=0").snapshots()
                .applyTo(ReplicaConfig.defaults(0, 3));
        assertEquals(1L << 20, rc.snapshotEveryBytes());
        assertEquals(0, rc.logRetainBytes());
        assertEquals(10_000, rc.snapshotEverySlots());
        assertNull(defaults.heapWarning(4, 384L << 20), "4 groups x 64 MiB fit three quarters of 384 MiB");
        String warning = defaults.heapWarning(16, 384L << 20);
        assertTrue(warning.contains("the logs of 16 groups may hold 1024 MiB") && warning.contains("384 MiB heap"), warning);
    }

    @Test
    void printedConfigReadsBackTheSame() throws Exception {
        ServerConfig c = with("groups=5");
        Path f = dir.resolve("p.properties");
        Files.writeString(f, c.toProperties());
        assertEquals(c, ServerConfig.load(f, List.of()));
    }
}
