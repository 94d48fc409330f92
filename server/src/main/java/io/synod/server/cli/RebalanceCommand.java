package io.synod.server.cli;

import io.synod.client.BlockingSynodClient;
import io.synod.client.SynodClient;
import io.synod.protocol.ClientFrame;
import io.synod.server.node.RebalanceStep;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code synod admin rebalance} (docs/membership.md, "Rebalancing"): asks each group's leader, one group at a time, for
 * the move that narrows the spread of replicas per node (from its most loaded node to the least loaded one that may
 * take it, zones kept), waits until the move is done, and goes on until no group has one. Each move is recorded and
 * checked like {@code move-replica} (the strict reconfiguration check included) and driven by the group's leader from
 * the placement in ZooKeeper and its committed membership, so the command is safe to repeat and to resume after a
 * crash of any node or of itself: nothing of it lives in this process.
 */
@Command(name = "rebalance", mixinStandardHelpOptions = true,
        description = {"Move replicas, one at a time, until the replicas per node differ by at most one (e.g. onto",
                "a node that joined). Each move is like move-replica; prints each move and the moves left to do.",
                "Exit 0 balanced; 1 a move was refused or not done in time, or zones or removed ids forbid the rest."})
final class RebalanceCommand extends AdminCommand.Op {
    @Mixin
    MoveReplicaCommand.Wait wait;

    @Override
    void check(CommandLine cl) {
        if (wait.millis < 0) {
            throw new CommandLine.ParameterException(cl, "--wait-ms must be >= 0, got " + wait.millis);
        }
    }

    @Override
    int run(SynodClient client, PrintWriter out) {
        BlockingSynodClient blocking = client.blocking();
        blocking.membership(0, ClientFrame.MEMBERSHIP_STATUS, -1); // connects: the shard map names the group count
        return rebalance(blocking, client.shardMap().groupCount(), wait.millis, out, spec.commandLine().getErr());
    }

    /**
     * Runs rebalance steps over the {@code groups} groups until a whole pass moves nothing; returns the exit status.
     * Every move narrows the spread, so the passes end; each wait is bounded by {@code waitMillis}.
     */
    static int rebalance(BlockingSynodClient blocking, int groups, long waitMillis, PrintWriter out, PrintWriter err) {
        int done = 0;
        int toDo = -1;
        boolean moved = true;
        while (moved) {
            moved = false;
            for (int g = 0; g < groups; g++) {
                RebalanceStep step = ask(blocking, g, waitMillis, err);
                if (step == null) {
                    return 1;
                }
                toDo = step.toDo();
                if (!step.moves()) {
                    continue;
                }
                out.printf("move %d: group %d from node %d to node %d (moves to do after it: %d)%n", done + 1, g,
                        step.from(), step.to(), step.toDo());
                out.flush();
                if (!awaitDone(blocking, g, step, waitMillis, err)) {
                    return 1;
                }
                done++;
                moved = true;
                out.printf("done %d: group %d on node %d, no longer on node %d%n", done, g, step.to(), step.from());
                out.flush();
                g--; // the same group may have another move
            }
        }
        if (toDo > 0) {
            err.println("error: no group has a move left, but the placement is " + toDo + " move(s) short of balance: "
                    + "zones forbid the rest (" + done + " moves done)");
            return 1;
        }
        out.println("balanced: replicas per node differ by at most one (" + done + " moves done)");
        return 0;
    }

    /** One rebalance step of group {@code g}, asked again while a move is in flight (bounded); null after the wait. */
    private static RebalanceStep ask(BlockingSynodClient blocking, int g, long waitMillis, PrintWriter err) {
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        while (true) {
            String answer = blocking.membership(g, ClientFrame.MEMBERSHIP_MOVE,
                    ClientFrame.moveNodes(ClientFrame.MOVE_TO_ANY, ClientFrame.MOVE_TO_ANY)).membership();
            RebalanceStep step = RebalanceStep.find(answer).orElseThrow(() -> new IllegalStateException(
                    "group " + g + ": the server does not know rebalance steps: " + answer.lines().findFirst().orElse("")));
            if (!step.waits()) {
                // A move back onto a node that left the group waits for that node's restart: say so.
                answer.lines().filter(l -> l.contains(": restart node ")).forEach(l -> err.println("note: " + l));
                return step;
            }
            if (System.nanoTime() - deadline >= 0) {
                err.println("error: group " + g + ": a move in flight did not finish within " + waitMillis + " ms ("
                        + "the leader goes on; repeat the command or watch 'synod admin status')");
                return null;
            }
            if (!pause()) {
                return null;
            }
        }
    }

    /** Polls the group's leader until its membership shows {@code step} done; false after {@code waitMillis}. */
    private static boolean awaitDone(BlockingSynodClient blocking, int g, RebalanceStep step, long waitMillis,
            PrintWriter err) {
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        while (true) {
            String status = blocking.membership(g, ClientFrame.MEMBERSHIP_STATUS, -1).membership();
            if (MoveReplicaCommand.done(status, step.from(), step.to())) {
                return true;
            }
            if (System.nanoTime() - deadline >= 0) {
                err.println("error: group " + g + ": the move from node " + step.from() + " to node " + step.to()
                        + " is recorded but not finished after " + waitMillis + " ms (the leader goes on; repeat the "
                        + "command)");
                return false;
            }
            if (!pause()) {
                return false;
            }
        }
    }

    private static boolean pause() {
        try {
            Thread.sleep(200);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
