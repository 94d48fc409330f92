package io.synod.bench.erasure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code synod bench codec}: the Reed-Solomon JMH benchmarks (issue 3), printed next to a textbook
 * coding loop measured in the same run and the Backblaze JavaReedSolomon baseline figures. The
 * work is {@link CodecBenchmarkMain}; this class only gives it the bench command line.
 */
@Command(name = "codec",
        header = "Reed-Solomon codec benchmarks (JMH) against a same-run textbook loop and the Backblaze baseline.",
        mixinStandardHelpOptions = true,
        description = "Benchmarks the Reed-Solomon codec with JMH: encode, and rebuild of 1 and of 2 missing data "
                + "shards, for (D,P) = (3,2) (4,1) (2,1) (6,3) (10,4) at 1 KiB, 64 KiB and 1 MiB shards. Prints MB/s of "
                + "data per CPU-second, the ratio to a textbook coding loop measured in the same run, and the ratio to "
                + "Backblaze JavaReedSolomon's medians measured on another machine (backblaze-baseline-throughput.csv, "
                + "shipped in the bench jar).%nTakes about 13 minutes, or about 10 with --quick.")
public final class CodecCommand implements Callable<Integer> {

    @Option(names = "--quick", description = "Shorter warm-up and measurement (1 fork, 6 x 0.5 s warm-up, 3 x 0.5 s measured).")
    boolean quick;

    @Option(names = "--out", paramLabel = "FILE.csv", description = "Also write the table as CSV to this file.")
    Path out;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (out != null) {
            // Fail before a quarter hour of benchmarking, not after it.
            Path parent = out.toAbsolutePath().getParent();
            if (parent == null || !Files.isDirectory(parent) || !Files.isWritable(parent)) {
                throw new ParameterException(spec.commandLine(),
                        "--out " + out + ": directory " + parent + " does not exist or is not writable");
            }
        }
        List<String> args = new ArrayList<>();
        if (quick) {
            args.add("--quick");
        }
        if (out != null) {
            args.add("--out");
            args.add(out.toString());
        }
        return CodecBenchmarkMain.run(args.toArray(String[]::new));
    }
}
