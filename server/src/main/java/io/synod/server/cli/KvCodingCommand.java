package io.synod.server.cli;

import io.synod.client.BadRequestException;
import io.synod.client.BlockingSynodClient;
import io.synod.client.CodingChangeResult;
import io.synod.client.Consistency;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code synod kv coding --group G F,X[,THRESHOLD]}: the admin path for RS-Paxos coding changes (docs/erasure.md,
 * "The admin path"). Exit 0 once the change is chosen and in force, 1 if the cluster failed to answer or the
 * outcome is unknown, 2 on bad usage or a change the server refuses (the rule it breaks is printed).
 */
@Command(name = "coding", mixinStandardHelpOptions = true,
        description = {"Admin: change the RS-Paxos coding of a running group through its leader's log.",
                "N (the group's size) is fixed; F (failures tolerated), X (data shards) and the size threshold change.",
                "The rules (Mu et al. 2014, section 4): 1 <= F, 2F < N, 1 <= X <= N - 2F, threshold >= 1 byte.",
                "Entries already written keep the coding they were written with; values proposed after the change",
                "use the new one. Prints 'OK slot S: <coding>' once the change entry is chosen and applied by the",
                "leader. The log is the authority, also across restarts: ZooKeeper's cluster spec keeps the coding",
                "the cluster was created with (a node's coding= may differ from it in F, X and the threshold).", "",
                "Exit status: 0 in force; 1 the cluster failed to answer or the outcome is unknown (asking again is",
                "harmless); 2 bad usage or a change the server refuses (a broken rule, a group without coding)."},
        footer = {"", "Examples:", "  synod kv --dir /tmp/synod-cl coding --group 0 2,1",
                "  synod kv --connect zk://127.0.0.1:2181/prod coding --group 0 1,3,4096"})
final class KvCodingCommand extends KvCli.Op {
    @Option(names = "--group", required = true, paramLabel = "G", description = "the group whose coding changes (0..)")
    int group;

    @Parameters(index = "0", paramLabel = "F,X[,THRESHOLD]",
            description = "failures tolerated, data shards, and optionally the size threshold in bytes (default: keep)")
    String coding;

    /** F, X and the threshold, checked before connecting (bad usage does not wait for the cluster). */
    private int[] parsed;

    @Override
    public Integer call() {
        parsed = parse(spec.commandLine(), group, coding);
        return super.call();
    }

    @Override
    int run(BlockingSynodClient client, Consistency consistency, PrintWriter out, PrintWriter err) {
        int[] p = parsed;
        CodingChangeResult r;
        try {
            r = client.changeCoding(group, p[0], p[1], p[2]);
        } catch (BadRequestException e) {
            err.println("error: refused: " + e.getMessage());
            err.println("Try 'synod kv coding --help' for more information.");
            return 2;
        }
        out.println("OK slot " + r.slot() + ": " + r.coding());
        return 0;
    }

    /** F, X and the threshold (0: keep) from {@code F,X[,THRESHOLD]}; bad usage names what is wrong. */
    static int[] parse(CommandLine cl, int group, String text) {
        if (group < 0) {
            throw new CommandLine.ParameterException(cl, "--group must be >= 0, got " + group);
        }
        String[] parts = text.split(",", -1);
        if (parts.length < 2 || parts.length > 3) {
            throw new CommandLine.ParameterException(cl, "coding must be F,X or F,X,THRESHOLD, got '" + text + "'");
        }
        int[] p = new int[3];
        String[] names = {"F", "X", "THRESHOLD"};
        for (int i = 0; i < parts.length; i++) {
            try {
                p[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new CommandLine.ParameterException(cl, names[i] + " must be a whole number, got '" + parts[i] + "'");
            }
        }
        if (p[0] < 1 || p[1] < 1 || (parts.length == 3 && p[2] < 1)) {
            throw new CommandLine.ParameterException(cl, "F and X must be >= 1 and THRESHOLD >= 1 byte, got '" + text + "'");
        }
        return p;
    }
}
