package io.synod.bench.ensemble;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How to launch a {@link ZkEnsemble}.
 *
 * @param size                 number of server JVMs: 1, 3 or 5
 * @param clientRtt            initial client–server round-trip time (half per direction)
 * @param serverRtt            initial server–server round-trip time (half per direction)
 * @param baseDir              where configs and data dirs go; null means a fresh temp dir, deleted on close
 * @param keepFiles            keep a temp base dir after close (for post-mortems)
 * @param forceSync            ZooKeeper's fsync per transaction; off by default so the experiments measure
 *                             network round trips rather than this machine's disk
 * @param serverHeapMegabytes  -Xmx of each server JVM
 * @param tickTimeMillis       ZooKeeper tickTime
 * @param startTimeout         how long to wait for every server to serve
 * @param seed                 seed of the proxies' jitter draws
 */
public record EnsembleOptions(int size, Duration clientRtt, Duration serverRtt, Path baseDir, boolean keepFiles,
                              boolean forceSync, int serverHeapMegabytes, int tickTimeMillis, Duration startTimeout,
                              long seed) {

    public EnsembleOptions {
        if (size != 1 && size != 3 && size != 5) {
            throw new IllegalArgumentException("ensemble size must be 1, 3 or 5, was " + size);
        }
        if (clientRtt.isNegative() || serverRtt.isNegative()) {
            throw new IllegalArgumentException("RTTs must be >= 0");
        }
    }

    public static EnsembleOptions of(int size) {
        return new EnsembleOptions(size, Duration.ZERO, Duration.ZERO, null, false, false, 256, 2000,
                Duration.ofSeconds(90), 1);
    }

    public EnsembleOptions withRtts(Duration client, Duration server) {
        return new EnsembleOptions(size, client, server, baseDir, keepFiles, forceSync, serverHeapMegabytes,
                tickTimeMillis, startTimeout, seed);
    }

    public EnsembleOptions withBaseDir(Path dir, boolean keep) {
        return new EnsembleOptions(size, clientRtt, serverRtt, dir, keep, forceSync, serverHeapMegabytes,
                tickTimeMillis, startTimeout, seed);
    }

    public EnsembleOptions withSeed(long newSeed) {
        return new EnsembleOptions(size, clientRtt, serverRtt, baseDir, keepFiles, forceSync, serverHeapMegabytes,
                tickTimeMillis, startTimeout, newSeed);
    }

    public EnsembleOptions withForceSync(boolean sync) {
        return new EnsembleOptions(size, clientRtt, serverRtt, baseDir, keepFiles, sync, serverHeapMegabytes,
                tickTimeMillis, startTimeout, seed);
    }
}
