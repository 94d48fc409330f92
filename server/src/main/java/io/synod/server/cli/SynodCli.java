package io.synod.server.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The {@code synod} command line. */
@Command(name = "synod",
        mixinStandardHelpOptions = true,
        versionProvider = SynodCli.VersionProvider.class,
        description = "Synod: a ZooKeeper-integrated Multi-Paxos coordination and key-value service.",
        subcommands = {SimulateCommand.class, DemoCommand.class, ServerCommand.class, ClusterCommand.class, KvCli.class,
                CertCommand.class, AuthCommand.class, AdminCommand.class,
                CommandLine.HelpCommand.class},
        footer = {"", "`synod bench ...` runs the benchmark suite from the bench module."})
public final class SynodCli implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing subcommand: try 'synod simulate --help'");
    }

    public static void main(String[] args) {
        System.exit(execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs the command line with the given streams; returns the exit code (0 ok, 1 violations or failure, 2 bad usage). */
    static int execute(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine commandLine = new CommandLine(new SynodCli());
        commandLine.setUsageHelpWidth(100); // the descriptions are written in lines of up to 100 columns, like `synod bench`'s
        commandLine.setOut(out);
        commandLine.setErr(err);
        commandLine.setParameterExceptionHandler(SynodCli::onBadUsage);
        return commandLine.execute(args);
    }

    /** A bad option: say what is wrong, show the synopsis and where the full help is, exit 2. */
    private static int onBadUsage(CommandLine.ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        PrintWriter err = command.getErr();
        err.println("error: " + e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.print("usage: " + command.getHelp().synopsis(0));
        err.println("Try '" + command.getCommandSpec().qualifiedName() + " --help' for more information.");
        err.flush();
        return command.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** The version the jar manifest records (Implementation-Version), or a development marker when run from classes. */
    static final class VersionProvider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = SynodCli.class.getPackage().getImplementationVersion();
            return new String[] {"synod " + (version == null ? "(development build, no jar manifest)" : version),
                    "Java " + Runtime.version()};
        }
    }
}
