package io.synod.bench.erasure;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs {@link ReedSolomonCodecBenchmark} for encode, decode1 and decode2 on (3,2), (4,1), (2,1),
 * (6,3), (10,4) at 1 KiB, 64 KiB and 1 MiB shards, and prints MB/s of data (1e6 bytes of D x shard
 * bytes per second of CPU time, see {@link CpuTimeProfiler}) next to the same-run
 * {@link TextbookCodingLoop} and the Backblaze JavaReedSolomon medians from
 * {@code backblaze-baseline-throughput.csv}, which were measured the same way on another machine.
 *
 * <p>Usage: {@code CodecBenchmarkMain [--quick] [--out FILE.csv]}. {@code --quick}: 1 fork, 6 x 0.5 s
 * warm-up, 3 x 0.5 s measurement per combination (about 10 minutes in all, our codec and the textbook loop); default: 1 fork,
 * 3 x 1 s warm-up, 5 x 1 s measurement. decode2 is skipped (and reported) where P = 1.
 */
public final class CodecBenchmarkMain {

    static final List<String> CONFIGS = List.of("3+2", "4+1", "2+1", "6+3", "10+4");
    static final List<Integer> SHARD_SIZES_BYTES = List.of(1024, 65536, 1048576);
    static final List<String> OPS = List.of("encode", "decode1", "decode2");

    private CodecBenchmarkMain() {
    }

    /**
     * One measured combination. Throughputs are MB/s of data per second of CPU time (what the
     * ratios use, as the baseline CSV does), plus ours per second of wall-clock time for reference.
     */
    record Row(int data, int parity, int shardBytes, String op, double megabytesPerCpuSecond,
            double textbookMegabytesPerCpuSecond, double megabytesPerWallSecond,
            OptionalDouble baselineMegabytesPerSecond) {

        /** Ours over the Backblaze CSV median, if the CSV has this combination. */
        OptionalDouble ratio() {
            return baselineMegabytesPerSecond.isPresent()
                    ? OptionalDouble.of(megabytesPerCpuSecond / baselineMegabytesPerSecond.getAsDouble())
                    : OptionalDouble.empty();
        }

        /** Ours over the textbook loop measured in the same run. */
        double textbookRatio() {
            return megabytesPerCpuSecond / textbookMegabytesPerCpuSecond;
        }
    }

    /** Runs the benchmarks and prints the table; see the class comment for the arguments. */
    public static void main(String[] args) throws RunnerException, IOException {
        int status = run(args);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * Does what {@link #main} does without exiting the JVM, for a command line that embeds it.
     *
     * @return 0 on success, 2 on bad arguments (after printing the usage)
     */
    public static int run(String... args) throws RunnerException, IOException {
        boolean quick = false;
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick":
                    quick = true;
                    break;
                case "--out":
                    if (i + 1 >= args.length) {
                        return usage("--out needs a file name");
                    }
                    out = Path.of(args[++i]);
                    break;
                case "--help":
                case "-h":
                    return usage(null);
                default:
                    return usage("unknown argument " + args[i]);
            }
        }

        BackblazeBaseline baseline = null;
        try {
            baseline = BackblazeBaseline.load();
            System.out.println("Backblaze baseline: " + baseline.source());
        } catch (IOException e) {
            System.out.println("No Backblaze baseline, ratios will be empty: " + e.getMessage());
        }

        List<Row> rows = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (String op : OPS) {
            List<String> configs = new ArrayList<>();
            for (String config : CONFIGS) {
                int missing = op.equals("decode2") ? 2 : 1;
                if (ReedSolomonCodecBenchmark.parityShards(config) < missing
                        || ReedSolomonCodecBenchmark.dataShards(config) < missing) {
                    skipped.add("(" + config.replace('+', ',') + ") " + op + ": only "
                            + ReedSolomonCodecBenchmark.parityShards(config)
                            + " parity shard(s), cannot rebuild " + missing + " missing data shards");
                } else {
                    configs.add(config);
                }
            }
            rows.addAll(run(op, configs, quick, baseline));
        }

        String table = table(rows, skipped, quick);
        System.out.println();
        System.out.println(table);
        if (out != null) {
            Files.writeString(out, csv(rows), StandardCharsets.UTF_8);
            System.out.println("Wrote " + out.toAbsolutePath());
        }
        return 0;
    }

    private static List<Row> run(String op, List<String> configs, boolean quick, BackblazeBaseline baseline)
            throws RunnerException {
        String textbookOp = "textbook" + Character.toUpperCase(op.charAt(0)) + op.substring(1);
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(ReedSolomonCodecBenchmark.class.getName() + "\\.(" + op + "|" + textbookOp + ")$")
                .param("config", configs.toArray(new String[0]))
                .param("shardBytes", SHARD_SIZES_BYTES.stream().map(String::valueOf).toArray(String[]::new))
                .addProfiler(CpuTimeProfiler.class)
                .forks(1)
                .threads(1);
        if (quick) {
            // Six warm-up iterations: on a 2-vCPU machine shared with other builds (load 10+) the
            // JIT needed 2 to 3 s to compile the codec's loops, and process CPU time counts the
            // compiler threads.
            options.warmupIterations(6).warmupTime(TimeValue.milliseconds(500))
                    .measurementIterations(3).measurementTime(TimeValue.milliseconds(500));
        } else {
            options.warmupIterations(3).warmupTime(TimeValue.seconds(1))
                    .measurementIterations(5).measurementTime(TimeValue.seconds(1));
        }
        Collection<RunResult> results = new Runner(options.build()).run();
        Map<String, double[]> ours = new HashMap<>();
        Map<String, Double> textbook = new HashMap<>();
        for (RunResult result : results) {
            String config = result.getParams().getParam("config");
            int shardBytes = Integer.parseInt(result.getParams().getParam("shardBytes"));
            double bytesPerOp = (double) ReedSolomonCodecBenchmark.dataShards(config) * shardBytes;
            double wall = result.getPrimaryResult().getScore() * bytesPerOp / 1e6;
            Result<?> cpuResult = result.getSecondaryResults().get(CpuTimeProfiler.RESULT_NAME);
            if (cpuResult == null) {
                throw new IllegalStateException("no CPU-time result for " + result.getParams().getBenchmark());
            }
            double cpu = cpuResult.getScore() * bytesPerOp / 1e6;
            String key = config + "/" + shardBytes;
            if (result.getParams().getBenchmark().endsWith("." + op)) {
                ours.put(key, new double[] {cpu, wall});
            } else {
                textbook.put(key, cpu);
            }
        }
        List<Row> rows = new ArrayList<>();
        for (String config : configs) {
            for (int shardBytes : SHARD_SIZES_BYTES) {
                String key = config + "/" + shardBytes;
                double[] measured = ours.get(key);
                Double reference = textbook.get(key);
                if (measured == null || reference == null) {
                    throw new IllegalStateException("JMH returned no result for " + op + " " + key);
                }
                int data = ReedSolomonCodecBenchmark.dataShards(config);
                int parity = ReedSolomonCodecBenchmark.parityShards(config);
                OptionalDouble base = baseline == null ? OptionalDouble.empty() : baseline.median(data, parity, shardBytes, op);
                rows.add(new Row(data, parity, shardBytes, op, measured[0], reference, measured[1], base));
            }
        }
        return rows;
    }

    static String table(List<Row> rows, List<String> skipped, boolean quick) {
        StringBuilder text = new StringBuilder();
        text.append("Reed-Solomon codec throughput, MB/s of data (1e6 bytes of D x shard size) per CPU-second, ")
                .append(quick ? "quick" : "full").append(" settings\n");
        text.append(String.format(Locale.ROOT, "%4s %3s %8s %-8s %10s %14s %10s %15s %9s %10s%n",
                "D", "P", "shard", "op", "ours", "textbook loop", "vs textbk", "Backblaze CSV", "vs Bblz", "ours wall"));
        for (Row row : ordered(rows)) {
            text.append(String.format(Locale.ROOT, "%4d %3d %8s %-8s %10.0f %14.0f %10s %15s %9s %10.0f%n",
                    row.data, row.parity, sizeLabel(row.shardBytes), row.op, row.megabytesPerCpuSecond,
                    row.textbookMegabytesPerCpuSecond, String.format(Locale.ROOT, "%.2fx", row.textbookRatio()),
                    row.baselineMegabytesPerSecond.isPresent()
                            ? String.format(Locale.ROOT, "%.0f", row.baselineMegabytesPerSecond.getAsDouble()) : "n/a",
                    row.ratio().isPresent() ? String.format(Locale.ROOT, "%.2fx", row.ratio().getAsDouble()) : "n/a",
                    row.megabytesPerWallSecond));
        }
        for (String reason : skipped) {
            text.append("skipped ").append(reason).append('\n');
        }
        return text.toString();
    }

    static String csv(List<Row> rows) {
        StringBuilder text = new StringBuilder("data,parity,shard_bytes,op,ours_MBps_cpu,textbook_MBps_cpu,"
                + "ratio_vs_textbook,backblaze_median_MBps,ratio_vs_backblaze,ours_MBps_wall\n");
        for (Row row : ordered(rows)) {
            text.append(String.format(Locale.ROOT, "%d,%d,%d,%s,%.1f,%.1f,%.3f,%s,%s,%.1f%n", row.data, row.parity,
                    row.shardBytes, row.op, row.megabytesPerCpuSecond, row.textbookMegabytesPerCpuSecond,
                    row.textbookRatio(),
                    row.baselineMegabytesPerSecond.isPresent()
                            ? String.format(Locale.ROOT, "%.0f", row.baselineMegabytesPerSecond.getAsDouble()) : "",
                    row.ratio().isPresent() ? String.format(Locale.ROOT, "%.3f", row.ratio().getAsDouble()) : "",
                    row.megabytesPerWallSecond));
        }
        return text.toString();
    }

    /** Rows in the CSV baseline's order: config, then shard size, then op. */
    private static List<Row> ordered(List<Row> rows) {
        List<Row> ordered = new ArrayList<>(rows);
        ordered.sort((a, b) -> {
            int byConfig = Integer.compare(CONFIGS.indexOf(a.data + "+" + a.parity), CONFIGS.indexOf(b.data + "+" + b.parity));
            if (byConfig != 0) {
                return byConfig;
            }
            int bySize = Integer.compare(a.shardBytes, b.shardBytes);
            return bySize != 0 ? bySize : Integer.compare(OPS.indexOf(a.op), OPS.indexOf(b.op));
        });
        return ordered;
    }

    private static String sizeLabel(int bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }

    private static int usage(String problem) {
        PrintStream stream = problem == null ? System.out : System.err;
        if (problem != null) {
            stream.println(problem);
        }
        stream.println("usage: CodecBenchmarkMain [--quick] [--out FILE.csv]");
        stream.println("  --quick       1 fork, 6 x 0.5 s warm-up, 3 x 0.5 s measurement per combination");
        stream.println("  --out FILE    also write the results as CSV");
        return problem == null ? 0 : 2;
    }
}
