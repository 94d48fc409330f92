package io.synod.bench.jmh;

import io.synod.bench.BenchCli;
import java.util.Collection;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code synod bench jmh}: the JMH suite of the server's hot paths — wire codec encode/decode
 * ({@link WireCodecBenchmark}), log append with group commit ({@link LogAppendBenchmark}), RocksDB apply
 * ({@link RocksApplyBenchmark}), and the core replica's propose-to-commit path in memory
 * ({@link ReplicaStepBenchmark}). JMH prints its own progress; a summary table follows.
 */
@Command(name = "jmh", mixinStandardHelpOptions = true, usageHelpWidth = BenchCli.HELP_WIDTH,
        description = {"JMH microbenchmarks of the hot paths: wire codec, log append + fsync (group commit),",
                "RocksDB apply, replica propose-to-commit in memory."})
public final class JmhCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--quick", description = "1 fork, 2 x 0.5 s warm-up, 3 x 0.5 s measured per benchmark")
    boolean quick;

    @Option(names = "--include", paramLabel = "REGEX", defaultValue = "io\\.synod\\.bench\\.jmh\\..*Benchmark.*",
            description = "which benchmarks (JMH include pattern; default: the whole suite)")
    String include;

    @Override
    public Integer call() throws Exception {
        ChainedOptionsBuilder options = new OptionsBuilder().include(include).forks(1).threads(1)
                .jvmArgsAppend("-Xmx1g", "-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener");
        if (quick) {
            options.warmupIterations(2).warmupTime(TimeValue.milliseconds(500))
                    .measurementIterations(3).measurementTime(TimeValue.milliseconds(500));
        } else {
            options.warmupIterations(3).warmupTime(TimeValue.seconds(1))
                    .measurementIterations(5).measurementTime(TimeValue.seconds(1));
        }
        Collection<RunResult> results = new Runner(options.build()).run();
        if (results.isEmpty()) {
            spec.commandLine().getErr().println("error: no benchmark matches --include " + include);
            return BenchCli.EXIT_USAGE;
        }
        var out = spec.commandLine().getOut();
        out.println();
        out.printf("%-52s %-22s %14s %12s%n", "benchmark", "params", "ops/s", "error");
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark().replace("io.synod.bench.jmh.", "");
            StringBuilder params = new StringBuilder();
            for (String k : r.getParams().getParamsKeys()) {
                params.append(params.length() == 0 ? "" : ",").append(k).append('=').append(r.getParams().getParam(k));
            }
            out.printf(Locale.ROOT, "%-52s %-22s %14.0f %12.0f%n", name, params, r.getPrimaryResult().getScore(),
                    r.getPrimaryResult().getScoreError());
        }
        out.flush();
        return 0;
    }
}
