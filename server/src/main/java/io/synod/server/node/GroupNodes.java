package io.synod.server.node;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The nodes of one group as its leader sees them, one line of a membership answer ({@code synod admin status}): the
 * leader's node and the nodes of the voters and learners. {@code synod admin status} reads it back from each group's
 * answer to print replicas and leaderships per node (docs/membership.md, "Placement").
 */
public record GroupNodes(int leader, List<Integer> voters, List<Integer> learners) {
    private static final String PREFIX = "nodes: leader ";
    /** How a status answer names the nodes removed from the node set. */
    static final String REMOVED_NODES = "removed nodes: ";

    public GroupNodes {
        voters = List.copyOf(voters);
        learners = List.copyOf(learners);
    }

    /** "nodes: leader 1, voters 0 1 3, learners none". */
    public String line() {
        return PREFIX + leader + ", voters" + list(voters) + ", learners" + list(learners);
    }

    private static String list(List<Integer> nodes) {
        StringBuilder out = new StringBuilder();
        nodes.forEach(n -> out.append(' ').append(n));
        return nodes.isEmpty() ? " none" : out.toString();
    }

    /** The line of {@code answer} written by {@link #line()}, if there is one. */
    public static Optional<GroupNodes> find(String answer) {
        for (String line : answer.split("\n")) {
            if (!line.startsWith(PREFIX)) {
                continue;
            }
            String[] parts = line.substring(PREFIX.length()).split(", ");
            if (parts.length != 3 || !parts[1].startsWith("voters ") || !parts[2].startsWith("learners ")) {
                return Optional.empty();
            }
            try {
                return Optional.of(new GroupNodes(Integer.parseInt(parts[0].trim()), nodes(parts[1]), nodes(parts[2])));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /**
     * The nodes taken out of the cluster's node set that a status answer names on its {@link #REMOVED_NODES} line
     * ({@code synod admin remove-node}); empty if none.
     */
    public static List<Integer> removed(String answer) {
        for (String line : answer.split("\n")) {
            if (line.startsWith(REMOVED_NODES)) {
                try {
                    return nodes("removed " + line.substring(REMOVED_NODES.length()));
                } catch (NumberFormatException e) {
                    return List.of();
                }
            }
        }
        return List.of();
    }

    /** The line of a status answer naming the nodes removed from the node set, or "" if none was. */
    static String removedLine(Set<Integer> removed) {
        StringBuilder out = new StringBuilder();
        for (int n : removed) {
            out.append(out.length() == 0 ? REMOVED_NODES : " ").append(n);
        }
        return out.toString();
    }

    private static List<Integer> nodes(String part) {
        List<Integer> out = new ArrayList<>();
        String[] words = part.trim().split(" ");
        for (int i = 1; i < words.length; i++) {
            if (!words[i].equals("none")) {
                out.add(Integer.parseInt(words[i]));
            }
        }
        return out;
    }
}
