package io.synod.server.node;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One group's answer to a rebalance request ({@code synod admin rebalance}; docs/membership.md, "Rebalancing"), one
 * line of the leader's text: the move it recorded ({@code from} to {@code to}), or that the group has nothing to move
 * ({@code from} = -1) or waits for a move in flight ({@code from} = {@code to} = -2); with the moves the whole
 * placement still needs ({@link PlacementPlanner#movesToBalance}). The command reads it back to wait and to print
 * progress.
 */
public record RebalanceStep(int group, int from, int to, int toDo) {
    private static final String PREFIX = "rebalance: group ";
    private static final Pattern LINE = Pattern.compile(
            "rebalance: group (\\d+) (?:moves node (\\d+) to node (\\d+)|(balanced)|(waits)), moves to do (\\d+)");

    static RebalanceStep moving(int group, int from, int to, int toDo) {
        return new RebalanceStep(group, from, to, toDo);
    }

    static RebalanceStep balanced(int group, int toDo) {
        return new RebalanceStep(group, -1, -1, toDo);
    }

    static RebalanceStep waiting(int group, int toDo) {
        return new RebalanceStep(group, -2, -2, toDo);
    }

    /** Whether the leader recorded a move of this group. */
    public boolean moves() {
        return from >= 0;
    }

    /** Whether the group waits for a move in flight (a learner, or members not yet on the placed nodes). */
    public boolean waits() {
        return from == -2;
    }

    /** "rebalance: group 2 moves node 0 to node 3, moves to do 2". */
    public String line() {
        String what = moves() ? "moves node " + from + " to node " + to : waits() ? "waits" : "balanced";
        return PREFIX + group + " " + what + ", moves to do " + toDo;
    }

    /** The line of {@code answer} written by {@link #line()}, if there is one. */
    public static Optional<RebalanceStep> find(String answer) {
        for (String line : answer.split("\n")) {
            Matcher m = LINE.matcher(line);
            if (m.matches()) {
                int group = Integer.parseInt(m.group(1));
                int toDo = Integer.parseInt(m.group(6));
                if (m.group(2) != null) {
                    return Optional.of(moving(group, Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)), toDo));
                }
                return Optional.of(m.group(4) != null ? balanced(group, toDo) : waiting(group, toDo));
            }
        }
        return Optional.empty();
    }
}
