package io.synod.server.cli;

import io.synod.client.BadRequestException;
import io.synod.client.BlockingSynodClient;
import io.synod.client.MembershipResult;
import io.synod.client.SynodClient;
import io.synod.protocol.ClientFrame;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code synod admin remove-node NODE} (docs/membership.md, "Removing a node"): one group at a time, asks the group's
 * leader to move NODE's replica to the node it chooses (the fewest replicas among those that do not host the group,
 * zones kept) and waits until it is done, then takes NODE out of the node set (the placement records it as removed, so
 * rebalancing neither fills it nor counts it). Each move is checked like {@code
 * move-replica} (the strict reconfiguration check included) and safe to repeat, so the command is too.
 */
@Command(name = "remove-node", mixinStandardHelpOptions = true,
        description = {"Move every replica of NODE to other nodes, one group at a time (each like move-replica, the",
                "leader choosing the node with the fewest replicas, zones kept), until NODE hosts nothing; then take",
                "NODE out of the node set (rebalance no longer fills it; its id is not reused). Stop it after."})
final class RemoveNodeCommand extends AdminCommand.Op {
    @Parameters(index = "0", paramLabel = "NODE", description = "the node to empty")
    int node;

    @Mixin
    MoveReplicaCommand.Wait wait;

    @Override
    void check(CommandLine cl) {
        if (node < 0 || node > 62 || wait.millis < 0) {
            throw new CommandLine.ParameterException(cl, "NODE must be 0..62 and --wait-ms >= 0, got " + node + " and "
                    + wait.millis);
        }
    }

    @Override
    int run(SynodClient client, PrintWriter out) {
        BlockingSynodClient blocking = client.blocking();
        PrintWriter err = spec.commandLine().getErr();
        blocking.membership(0, ClientFrame.MEMBERSHIP_STATUS, -1); // connects: the shard map names the group count
        int groups = client.shardMap().groupCount();
        for (int g = 0; g < groups; g++) {
            int code = MoveReplicaCommand.move(blocking, g, node, ClientFrame.MOVE_TO_ANY, wait.millis, out, err);
            if (code != 0) {
                return code;
            }
        }
        out.println("node " + node + " hosts no replica of the " + groups + " groups");
        // Out of the node set: rebalancing no longer counts it as a node to fill, nor moves replicas onto it.
        MembershipResult left;
        try {
            left = blocking.membership(0, ClientFrame.MEMBERSHIP_REMOVE_NODE, node);
        } catch (BadRequestException e) {
            err.println("error: node " + node + " is empty but stays in the node set: " + e.getMessage());
            return 1;
        }
        out.println(left.membership().lines().findFirst().orElse(""));
        out.println("stop node " + node + "'s process: it hosts nothing and is no longer in the node set");
        return 0;
    }
}
