package io.synod.server.cli;

import io.synod.client.BlockingSynodClient;
import io.synod.client.MembershipResult;
import io.synod.client.SynodClient;
import io.synod.protocol.ClientFrame;
import io.synod.server.node.GroupNodes;
import java.io.PrintWriter;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code synod admin status|add-learner|promote|remove-replica}: a group's membership through its leader
 * (docs/membership.md, "On the server"). Each change is one single step (rule M4) the leader proposes through the log;
 * the leader refuses, naming the rule, what it will not do now (a change in flight, M5; a learner behind, M6; an id
 * removed before, M7; the last voter). Exit 0 done, 1 refused or the cluster failed to answer, 2 bad usage.
 */
@Command(name = "admin", mixinStandardHelpOptions = true,
        description = {"Admin: a group's replicas and single-step membership changes through its leader.",
                "'status' lists the voters, learners and retired replica ids with their nodes and",
                "incarnations, the leader and each member's progress. A wiped node re-joins by",
                "itself (rejoin.wiped); these commands are for what an operator decides.", "",
                "Exit status: 0 done; 1 refused (the rule is printed) or the cluster failed to answer; 2 bad usage."},
        subcommands = {AdminCommand.Status.class, AdminCommand.AddLearner.class, AdminCommand.Promote.class,
                AdminCommand.RemoveReplica.class, MoveReplicaCommand.class, RemoveNodeCommand.class,
                RebalanceCommand.class},
        footer = {"", "Examples:", "  synod admin --dir /tmp/synod-cl status",
                "  synod admin --dir /tmp/synod-cl remove-replica --group 0 --replica 2",
                "  synod admin --dir /tmp/synod-cl move-replica --group 0 --from 0 --to 3",
                "  synod admin --dir /tmp/synod-cl remove-node 0",
                "  synod admin --dir /tmp/synod-cl rebalance"})
public final class AdminCommand implements Runnable {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    ClientTarget target;

    @Option(names = "--timeout-ms", scope = ScopeType.INHERIT, defaultValue = "10000", paramLabel = "MS",
            description = "per call, retries included (default ${DEFAULT-VALUE})")
    long timeoutMillis;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "missing operation: status, add-learner, promote, remove-replica, move-replica, remove-node or rebalance "
                        + "(try 'synod admin --help')");
    }

    /** One request through an administrator's client. */
    abstract static class Op implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @ParentCommand
        AdminCommand admin;

        abstract int run(SynodClient client, PrintWriter out);

        @Override
        public Integer call() {
            CommandLine cl = spec.commandLine();
            check(cl);
            return admin.target.runWithTimeout(cl, admin.timeoutMillis, "synod admin", client -> run(client, cl.getOut()));
        }

        void check(CommandLine cl) {}
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = {"Every group's (or --group's) membership as its leader sees it; for every group, then",
                    "each node's replicas (voters and learners) and leaderships."})
    static final class Status extends Op {
        @Option(names = "--group", paramLabel = "G", defaultValue = "-1", description = "one group (default: every group)")
        int group;

        @Override
        int run(SynodClient client, PrintWriter out) {
            BlockingSynodClient blocking = client.blocking();
            int first = Math.max(group, 0);
            Map<Integer, int[]> perNode = new TreeMap<>(); // node -> {replicas (voters and learners), leaderships}
            String text = blocking.membership(first, ClientFrame.MEMBERSHIP_STATUS, -1).membership();
            out.println(text);
            count(text, perNode);
            int last = group >= 0 ? group : client.shardMap().groupCount() - 1; // known once the first call connected
            for (int g = first + 1; g <= last; g++) {
                text = blocking.membership(g, ClientFrame.MEMBERSHIP_STATUS, -1).membership();
                out.println(text);
                count(text, perNode);
            }
            if (group < 0) {
                for (Map.Entry<Integer, int[]> e : perNode.entrySet()) {
                    out.printf("node %d: %d replicas, leads %d%n", e.getKey(), e.getValue()[0], e.getValue()[1]);
                }
                for (int n : GroupNodes.removed(text)) {
                    if (!perNode.containsKey(n)) {
                        out.printf("node %d: removed from the node set (synod admin remove-node)%n", n);
                    }
                }
            }
            return 0;
        }

        /** Adds one group's nodes (its answer's {@link GroupNodes} line) to the per-node counts. */
        private static void count(String answer, Map<Integer, int[]> perNode) {
            GroupNodes.find(answer).ifPresent(nodes -> {
                nodes.voters().forEach(n -> perNode.computeIfAbsent(n, k -> new int[2])[0]++);
                nodes.learners().forEach(n -> perNode.computeIfAbsent(n, k -> new int[2])[0]++);
                perNode.computeIfAbsent(nodes.leader(), k -> new int[2])[1]++;
            });
        }
    }

    /** A single-step change ({@code op}, one of ClientFrame's MEMBERSHIP_*) of one replica id of one group. */
    abstract static class Change extends Op {
        private final int op;

        @Option(names = "--group", required = true, paramLabel = "G", description = "the group (0..)")
        int group;

        @Option(names = "--replica", required = true, paramLabel = "ID",
                description = "the replica id (node n's ids are n, n + N, n + 2N, ...: 'synod admin status' lists them)")
        int replica;

        Change(int op) {
            this.op = op;
        }

        @Override
        void check(CommandLine cl) {
            if (group < 0 || replica < 0) {
                throw new CommandLine.ParameterException(cl, "--group and --replica must be >= 0, got " + group + " and "
                        + replica);
            }
        }

        @Override
        int run(SynodClient client, PrintWriter out) {
            MembershipResult r = client.blocking().membership(group, op, replica);
            out.println("OK slot " + r.slot() + ": " + r.membership());
            return 0;
        }
    }

    @Command(name = "add-learner", mixinStandardHelpOptions = true,
            description = "Add replica ID to the group as a learner (it gets the log; never counted in a quorum).")
    static final class AddLearner extends Change {
        AddLearner() {
            super(ClientFrame.MEMBERSHIP_ADD_LEARNER);
        }
    }

    @Command(name = "promote", mixinStandardHelpOptions = true,
            description = "Promote the learner ID to voter; refused until it applied through the commit point (M6).")
    static final class Promote extends Change {
        Promote() {
            super(ClientFrame.MEMBERSHIP_PROMOTE);
        }
    }

    @Command(name = "remove-replica", mixinStandardHelpOptions = true,
            description = "Remove the voter or learner ID; its id is retired and never admitted again (M7).")
    static final class RemoveReplica extends Change {
        RemoveReplica() {
            super(ClientFrame.MEMBERSHIP_REMOVE);
        }
    }
}
