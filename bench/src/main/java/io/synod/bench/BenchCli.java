package io.synod.bench;

import io.synod.bench.erasure.CodecCommand;
import io.synod.bench.locks.LocksAtCommand;
import io.synod.bench.locks.LocksCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * {@code synod bench}: the experiment harness's command line. Each experiment family is a subcommand
 * (add one by listing its class in {@code subcommands}).
 */
@Command(name = "synod bench",
        mixinStandardHelpOptions = true,
        version = "synod bench 0.1.0",
        description = "Runs Synod's experiments and writes CSV files, PNG plots and a summary.",
        subcommands = {LocksCommand.class, LocksAtCommand.class, CodecCommand.class, CommandLine.HelpCommand.class},
        footer = {"", "Run 'synod bench help <command>' or 'synod bench <command> --help' for a command's options."})
public final class BenchCli implements Callable<Integer> {

    /** Exit code for bad arguments (picocli's usage-error code). */
    public static final int EXIT_USAGE = 2;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("Missing command: choose one of " + spec.subcommands().keySet());
        spec.commandLine().usage(spec.commandLine().getErr());
        return EXIT_USAGE;
    }

    /** The command line with its subcommands, for {@link #main} and tests. */
    public static CommandLine commandLine() {
        return new CommandLine(new BenchCli()).setCaseInsensitiveEnumValuesAllowed(true);
    }

    public static void main(String[] args) {
        // Plots are drawn off-screen; no display exists on build machines.
        System.setProperty("java.awt.headless", "true");
        System.exit(commandLine().execute(args));
    }
}
