package io.synod.bench.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.bench.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash safety of the node log shared by a node's groups: real server processes with eight groups each
 * (every group's records interleaved in one log per node, one fsync covering many groups' appends),
 * SIGKILLed and restarted while every group commits. An acknowledged append was fsynced before it was
 * acknowledged (the Ready contract, step 1), so it survives each kill in every group; the history stays
 * linearizable.
 */
class SharedLogTortureTest {

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void killsWhileEightGroupsCommitLoseNoAcknowledgedAppendOfAnyGroup(@TempDir Path dir) throws Exception {
        CliRun r = CliRun.of("torture", "--kills", "4", "--groups", "8", "--keys", "16", "--dir", dir.toString(),
                "--interval-ms", "800", "--session-timeout-ms", "1500", "--clients", "6", "--seed", "11", "--seconds", "240");
        System.out.println(r.out());
        assertEquals(0, r.exitCode(), r.out() + r.err());
        Matcher kills = Pattern.compile("kills:\\s+(\\d+) SIGKILLs").matcher(r.out());
        assertTrue(kills.find(), r.out());
        assertTrue(Integer.parseInt(kills.group(1)) >= 2, "the run killed nodes: " + kills.group(1));
        assertTrue(r.out().contains(", lost 0"), r.out());
        assertTrue(r.out().contains("checker:             LINEARIZABLE"), r.out());
        // The nodes kept one log each, and no group kept a log of its own.
        Path cluster = dir.resolve("cluster");
        for (int node = 0; node < 3; node++) {
            Path data = cluster.resolve("node-" + node).resolve("data");
            try (Stream<Path> s = Files.list(data.resolve("log"))) {
                assertTrue(s.anyMatch(p -> p.getFileName().toString().startsWith("nodelog-")), "node " + node + " has its log");
            }
            for (int g = 0; g < 8; g++) {
                assertFalse(Files.exists(data.resolve("group-" + g).resolve("log")), "node " + node + " group " + g);
            }
        }
    }
}
