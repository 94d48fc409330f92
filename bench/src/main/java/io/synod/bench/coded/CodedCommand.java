package io.synod.bench.coded;

import io.synod.bench.BenchCli;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code synod bench coded}: RS-Paxos coded accepts vs full copies on real servers over capped links ({@link CodedBench}). */
@Command(name = "coded",
        header = "RS-Paxos coded accepts vs full copies on real servers over bandwidth-capped links.",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpWidth = BenchCli.HELP_WIDTH,
        description = {"Starts ZooKeeper and 5 Synod servers in this JVM on 127.0.0.1 (one group), with every peer link",
                "(one TCP connection per direction) through a delaying proxy capped at --bandwidth-mbit and",
                "adding --rtt-ms (+-jitter/2). Clients write values of each --sizes for",
                "--seconds (after a warm-up), first with full copies (coding=off, majorities), then coded",
                "(coding=5,1,3: Q_W = 4, each follower gets one of 5 shards), as in RS-Paxos (Mu et al. 2014)",
                "Fig. 5/6. Prints writes/s and peer-link bytes per acknowledged write per run, then the",
                "coded/full ratios, then kills the leader of each mode and times the fail-over (Fig. 8).",
                "Output: coded-runs.csv, coded-ratios.csv, coded-failover.csv and coded.png in --out.",
                "Takes about 2 minutes with --quick, about 5 without.",
                "With --sim: the same comparison in the deterministic simulator instead (no servers; the replicas'",
                "code over simulated links with a bandwidth model), by default with the paper's links: 500 Mbit/s,",
                "RTT 100 +-20 ms, 32 clients; prints a table and writes coded-sim.csv in --out."})
public final class CodedCommand implements Callable<Integer> {

    @Option(names = "--quick", description = "Sizes 64, 256 and 1000 KiB; 2 s warm-up and 6 s measured per run.")
    boolean quick;

    @Option(names = "--sim", description = "Simulated links and replicas instead of real servers (defaults: --bandwidth-mbit 500 "
            + "--rtt-ms 100 --jitter-ms 40 --clients 32, sizes 4,16,64,256,1000 KiB, 10 simulated s each; --quick: 64,256,1000 "
            + "KiB for 4 s each).")
    boolean sim;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "With --sim: the seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--sizes", paramLabel = "KIB,...", split = ",",
            description = "Value sizes in KiB, 1..1000 (a command is at most 1 MiB with its key; default 4,64,256,1000; "
                    + "--quick: 64,256,1000).")
    List<Integer> sizesKib;

    @Option(names = "--bandwidth-mbit", paramLabel = "N",
            description = "Cap of every directed peer link in Mbit/s (default 50; --sim: 500 as in the paper, which used "
                    + "separate machines; these 5 servers share this machine's cores).")
    Integer bandwidthOption;
    int bandwidthMbit;

    @Option(names = "--rtt-ms", paramLabel = "MS", description = "Peer round-trip time added (default 20; --sim: 100).")
    Integer rttOption;
    int rttMillis;

    @Option(names = "--jitter-ms", paramLabel = "MS",
            description = "RTT jitter: +-MS/2 uniform (default 4; --sim: 40, i.e. 100 +-20 ms).")
    Integer jitterOption;
    int jitterMillis;

    @Option(names = "--clients", paramLabel = "N", description = "Concurrent writers (default 8; --sim: 32).")
    Integer clientsOption;
    int clients;

    @Option(names = "--heartbeat-ms", paramLabel = "MS", defaultValue = "2500",
            description = "Servers' heartbeat.ms; accepts are retransmitted every 2 heartbeats, which must exceed the "
                    + "queueing delay of a capped link (default ${DEFAULT-VALUE}).")
    int heartbeatMillis;

    @Option(names = "--failover-kib", paramLabel = "KIB", defaultValue = "256",
            description = "After the runs, kill the leader while writing values of this size and time the first "
                    + "write under the new leader (RS-Paxos Fig. 8); 0 skips it (default ${DEFAULT-VALUE}).")
    int failoverKib;

    @Option(names = "--seconds", paramLabel = "S", description = "Measured seconds per run (default 15; --quick: 6).")
    Integer seconds;

    @Option(names = "--out", paramLabel = "DIR", description = "Output directory (default bench-results/coded-<UTC time>).")
    Path outDir;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        bandwidthMbit = bandwidthOption != null ? bandwidthOption : sim ? 500 : 50;
        rttMillis = rttOption != null ? rttOption : sim ? 100 : 20;
        jitterMillis = jitterOption != null ? jitterOption : sim ? 40 : 4;
        clients = clientsOption != null ? clientsOption : sim ? 32 : 8;
        List<Integer> sizes = sizesKib != null ? sizesKib : quick ? List.of(64, 256, 1000)
                : sim ? List.of(4, 16, 64, 256, 1000) : List.of(4, 64, 256, 1000);
        List<Integer> bytes = new ArrayList<>();
        for (int kib : sizes) {
            if (kib < 1 || kib > 1000) {
                throw new ParameterException(spec.commandLine(), "--sizes: each size must be 1..1000 KiB, got " + kib);
            }
            bytes.add(kib * 1024);
        }
        if (bandwidthMbit < 1 || bandwidthMbit > 100_000) {
            throw new ParameterException(spec.commandLine(), "--bandwidth-mbit must be 1..100000, got " + bandwidthMbit);
        }
        if (rttMillis < 0 || rttMillis > 2000 || jitterMillis < 0 || jitterMillis > rttMillis) {
            throw new ParameterException(spec.commandLine(), "--rtt-ms must be 0..2000 and --jitter-ms 0..rtt, got "
                    + rttMillis + " and " + jitterMillis);
        }
        if (clients < 1 || clients > (sim ? 1024 : 64)) {
            throw new ParameterException(spec.commandLine(), "--clients must be 1.." + (sim ? 1024 : 64) + ", got " + clients);
        }
        if (heartbeatMillis < 1 || heartbeatMillis > 60_000) {
            throw new ParameterException(spec.commandLine(), "--heartbeat-ms must be 1..60000, got " + heartbeatMillis);
        }
        if (failoverKib < 0 || failoverKib > 1000) {
            throw new ParameterException(spec.commandLine(), "--failover-kib must be 0..1000, got " + failoverKib);
        }
        int measured = seconds != null ? seconds : sim ? (quick ? 4 : 10) : quick ? 6 : 15;
        if (measured < 1 || measured > 3600) {
            throw new ParameterException(spec.commandLine(), "--seconds must be 1..3600, got " + measured);
        }
        Path out = outDir != null ? outDir : Path.of("bench-results", "coded-"
                + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        BenchCli.requireWritableDirectory(spec, "--out", out);
        if (sim) {
            if (measured > 600) {
                throw new ParameterException(spec.commandLine(), "--seconds must be 1..600 with --sim, got " + measured);
            }
            spec.commandLine().getOut().printf("synod bench coded --sim: sizes %s KiB, %d clients, %d simulated s per run, "
                    + "links %d Mbit/s, RTT %d +-%.1f ms, seed %d, out %s%n", sizes, clients, measured, bandwidthMbit, rttMillis,
                    jitterMillis / 2.0, seed, out);
            CodedSim.run(bytes, bandwidthMbit * 1_000_000L, rttMillis, jitterMillis, clients, quick ? 1 : 2, measured, seed, out,
                    spec.commandLine().getOut());
            return 0;
        }
        CodedBench.Config config = new CodedBench.Config(bytes, bandwidthMbit * 1_000_000L, Duration.ofMillis(rttMillis),
                Duration.ofMillis(jitterMillis), clients, Duration.ofSeconds(quick ? 2 : 3), Duration.ofSeconds(measured),
                1024, heartbeatMillis, failoverKib * 1024, out);
        spec.commandLine().getOut().printf("synod bench coded: sizes %s KiB, %d clients, %d s per run, out %s%n", sizes,
                clients, measured, out);
        new CodedBench(config, spec.commandLine().getOut()).run();
        return 0;
    }
}
