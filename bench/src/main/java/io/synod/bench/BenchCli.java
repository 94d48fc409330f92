package io.synod.bench;

import io.synod.bench.coded.CodedCommand;
import io.synod.bench.erasure.CodecCommand;
import io.synod.bench.jmh.JmhCommand;
import io.synod.bench.join.JoinCommand;
import io.synod.bench.kv.KvBenchCommand;
import io.synod.bench.leases.LeasesCommand;
import io.synod.bench.locks.LocksAtCommand;
import io.synod.bench.locks.LocksCommand;
import io.synod.bench.torture.NemesisCommand;
import io.synod.bench.torture.TortureCommand;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code synod bench}: the experiment harness's command line. Each experiment family is a subcommand
 * (add one by listing its class in {@code subcommands}). Errors are reported as the main {@code synod}
 * command line reports them: one {@code error: ...} line, the command's synopsis, "Try '... --help'",
 * exit code 2 for bad arguments; a run that fails gets one {@code error: ...} line and exit code 1.
 */
@Command(name = "synod bench",
        mixinStandardHelpOptions = true,
        version = "synod bench 0.1.0",
        usageHelpWidth = BenchCli.HELP_WIDTH + 10, // the command list: name column plus each one-line header
        description = "Runs Synod's experiments and writes CSV files, PNG plots and a summary.",
        subcommands = {LocksCommand.class, LocksAtCommand.class, CodecCommand.class, CodedCommand.class,
                KvBenchCommand.class, JoinCommand.class, JmhCommand.class, TortureCommand.class, NemesisCommand.class, LeasesCommand.class,
                CommandLine.HelpCommand.class},
        footer = {"", "Run 'synod bench help <command>' or 'synod bench <command> --help' for a command's options."})
public final class BenchCli implements Callable<Integer> {

    /** Exit code for bad arguments (picocli's usage-error code). */
    public static final int EXIT_USAGE = 2;
    /** Exit code for a run that failed. */
    public static final int EXIT_FAILED = 1;
    /** Width of every bench help text; descriptions are written in lines shorter than this, so nothing wraps twice. */
    public static final int HELP_WIDTH = 100;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "missing command: choose one of "
                + String.join(", ", spec.subcommands().keySet()));
    }

    /** The command line with its subcommands and error handlers, for {@link #main} and tests. */
    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new BenchCli()).setCaseInsensitiveEnumValuesAllowed(true);
        commandLine.setParameterExceptionHandler(BenchCli::onBadUsage);
        commandLine.setExecutionExceptionHandler(BenchCli::onFailure);
        return commandLine;
    }

    /** A bad argument: say what is wrong, show the synopsis and where the full help is, exit 2. */
    private static int onBadUsage(ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        PrintWriter err = command.getErr();
        err.println("error: " + e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.print("usage: " + command.getHelp().synopsis(0));
        err.println("Try '" + command.getCommandSpec().qualifiedName() + " --help' for more information.");
        err.flush();
        return EXIT_USAGE;
    }

    /**
     * A run that failed: one line naming the problem, exit 1. The stack trace is printed only with
     * {@code SYNOD_DEBUG=1}: it helps whoever debugs the harness, not whoever runs it.
     */
    private static int onFailure(Exception e, CommandLine command, CommandLine.ParseResult parseResult) {
        PrintWriter err = command.getErr();
        String message = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
        err.println("error: " + command.getCommandSpec().qualifiedName() + " failed: " + message.lines().findFirst().orElse(message)
                + " (" + e.getClass().getSimpleName() + "; SYNOD_DEBUG=1 prints the stack trace)");
        if ("1".equals(System.getenv("SYNOD_DEBUG"))) {
            e.printStackTrace(err);
        }
        err.flush();
        return EXIT_FAILED;
    }

    /**
     * Creates {@code dir} (and its parents) and checks that it is writable, before any long run starts; a
     * directory that cannot be made is a bad argument ({@link ParameterException}), not a failed run.
     */
    public static Path requireWritableDirectory(CommandSpec spec, String option, Path dir) {
        try {
            Files.createDirectories(dir);
            if (!Files.isWritable(dir)) {
                throw new IOException("not writable");
            }
        } catch (IOException | SecurityException e) {
            String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            if (e instanceof FileSystemException fse && fse.getReason() != null) {
                reason = fse.getReason();
            } else if (e instanceof NoSuchFileException || e instanceof FileAlreadyExistsException) {
                reason = e.getClass().getSimpleName().replace("Exception", "") + ": " + e.getMessage();
            }
            throw new ParameterException(spec.commandLine(), option + " " + dir + " cannot be created or written (" + reason + ")");
        }
        return dir;
    }

    public static void main(String[] args) {
        // Plots are drawn off-screen; no display exists on build machines.
        System.setProperty("java.awt.headless", "true");
        // The server jar on the classpath (bench coded runs real servers) has a logback.xml of its own;
        // naming the bench's explicitly keeps logback from printing its "occurs multiple times" status
        // lines on stdout and from picking the other one.
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "synod-bench-logback.xml");
        }
        // The classpath holds two logback.xml (this jar's and the self-contained server jar's, which bench kv
        // and torture need); logback would print its configuration status about that on every run.
        System.setProperty("logback.statusListenerClass", "ch.qos.logback.core.status.NopStatusListener");
        System.exit(commandLine().execute(args));
    }
}
