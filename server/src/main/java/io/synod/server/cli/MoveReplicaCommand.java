package io.synod.server.cli;

import io.synod.client.BlockingSynodClient;
import io.synod.client.MembershipResult;
import io.synod.client.SynodClient;
import io.synod.protocol.ClientFrame;
import io.synod.server.node.GroupNodes;
import java.io.PrintWriter;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code synod admin move-replica --group G --from A --to B} (docs/membership.md, "Moving a replica"): the group's
 * leader checks the move (A hosts the group, B does not, the zone rule, no move in flight) and records it in the
 * placement (B's id in the group removed before: B takes a new id with a reset replica at its next start, and the
 * answer says so); then, step by step from its committed membership, it adds B's current id as a learner,
 * promotes it once caught up (rule M6) and removes A's id. This command waits until the leader's membership shows it
 * done. Safe to repeat: a move already recorded is only waited for.
 */
@Command(name = "move-replica", mixinStandardHelpOptions = true,
        description = {"Move the group's replica from node A to node B (learner, caught up, voter, then A removed),",
                "and wait until the group's membership shows it done. Safe to repeat."})
final class MoveReplicaCommand extends AdminCommand.Op {
    @Option(names = "--group", required = true, paramLabel = "G", description = "the group (0..)")
    int group;

    @Option(names = "--from", required = true, paramLabel = "A", description = "the node that hosts the replica now")
    int from;

    @Option(names = "--to", required = true, paramLabel = "B", description = "the node that does not host the group yet")
    int to;

    @Mixin
    Wait wait;

    /** {@code --wait-ms}: how long to wait for each move to finish (move-replica, remove-node). */
    static final class Wait {
        @Option(names = "--wait-ms", defaultValue = "120000", paramLabel = "MS",
                description = "how long to wait for each move to finish (default ${DEFAULT-VALUE}; 0: do not wait)")
        long millis;
    }

    @Override
    void check(CommandLine cl) {
        if (group < 0 || from < 0 || from > 62 || to < 0 || to > 62 || wait.millis < 0) {
            throw new CommandLine.ParameterException(cl, "--group must be >= 0, --from and --to node ids 0..62 and "
                    + "--wait-ms >= 0, got " + group + ", " + from + ", " + to + ", " + wait.millis);
        }
    }

    @Override
    int run(SynodClient client, PrintWriter out) {
        return move(client.blocking(), group, from, to, wait.millis, out, spec.commandLine().getErr());
    }

    /**
     * Asks the group's leader to move its replica from node {@code from} to node {@code to} ({@link
     * ClientFrame#MOVE_TO_ANY}: the leader chooses), then waits up to {@code waitMillis} until its membership shows the
     * move done. Returns the exit status: 0 done, 1 not done in time (a refusal throws, as every admin call).
     */
    static int move(BlockingSynodClient blocking, int group, int from, int to, long waitMillis, PrintWriter out,
            PrintWriter err) {
        MembershipResult r = blocking.membership(group, ClientFrame.MEMBERSHIP_MOVE, ClientFrame.moveNodes(from, to));
        out.println(r.membership().lines().findFirst().orElse(""));
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        String status = r.membership();
        while (true) {
            if (done(status, from, to)) {
                out.println("done: group " + group + ": " + GroupNodes.find(status).map(GroupNodes::line).orElse(""));
                return 0;
            }
            if (System.nanoTime() - deadline >= 0) {
                out.println(status);
                err.println("error: group " + group + ": the move from node " + from + " is recorded but not finished "
                        + "after " + waitMillis + " ms (the leader goes on; repeat the command or watch 'synod admin "
                        + "status')");
                return 1;
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 1;
            }
            status = blocking.membership(group, ClientFrame.MEMBERSHIP_STATUS, -1).membership();
        }
    }

    /**
     * Whether the leader's membership shows node {@code from} gone, no learner left and node {@code to} voting (any
     * node, for {@link ClientFrame#MOVE_TO_ANY}).
     */
    static boolean done(String status, int from, int to) {
        Optional<GroupNodes> nodes = GroupNodes.find(status);
        return nodes.isPresent() && !nodes.get().voters().contains(from) && nodes.get().learners().isEmpty()
                && (to == ClientFrame.MOVE_TO_ANY || nodes.get().voters().contains(to));
    }
}
