package io.synod.bench.erasure;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Adds operations per second of process CPU time to each JMH iteration, as the secondary result
 * {@value #RESULT_NAME}. On a shared machine wall-clock throughput mostly measures how much CPU the
 * neighbours left us; CPU-time throughput measures the code, and is the definition the Backblaze
 * baseline CSV uses ("per second of this thread's CPU time"). The benchmark thread does almost all
 * of the forked JVM's work once warmed up (the codec does not allocate, so no GC), so process CPU
 * time stands in for its thread CPU time; JIT or JMH housekeeping would only lower the figure.
 */
public final class CpuTimeProfiler implements InternalProfiler {

    /** Name of the secondary result, in operations per CPU-second. */
    public static final String RESULT_NAME = "cpu.opsPerCpuSecond";

    private final OperatingSystemMXBean os =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long cpuNanosBefore;

    @Override
    public String getDescription() {
        return "operations per second of process CPU time";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        cpuNanosBefore = os.getProcessCpuTime();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
            IterationResult result) {
        long cpuNanos = os.getProcessCpuTime() - cpuNanosBefore;
        if (cpuNanos <= 0) {
            return List.of();
        }
        double opsPerCpuSecond = result.getMetadata().getAllOps() / (cpuNanos / 1e9);
        return List.of(new ScalarResult(RESULT_NAME, opsPerCpuSecond, "ops/cpu-s", AggregationPolicy.AVG));
    }
}
