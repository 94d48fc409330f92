package io.synod.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Round-trip times between named sites, one replica per site, for geo-distributed simulations. The
 * simulated network then delivers a message from site {@code a} to site {@code b} after half the RTT
 * plus a small LAN-like jitter, and a client attached to site {@code a} reaches the replica at site
 * {@code b} after half the RTT plus its usual client latency (the replica of its own site is local).
 *
 * <p>Text form (a file, or inline with {@code ;} for line breaks): the first line names the sites,
 * comma-separated; then one line per site with its RTTs in milliseconds to every site, in the same
 * order; the diagonal must be 0; {@code #} starts a comment. For example
 * {@code "A,B,C; 0,20,80; 20,0,70; 80,70,0"}.
 */
public final class LatencyMatrix {
    /** The largest RTT a matrix may hold (10 s): anything above is a typo, not a network. */
    public static final double MAX_RTT_MILLIS = 10_000;

    /**
     * Five EC2 regions as in the quorum-lease paper's evaluation (Moraru et al., SoCC 2014, evaluation: Japan,
     * California, Oregon, Virginia, Ireland), with average inter-region RTTs from a public 2017
     * measurement of those regions (rounded to whole milliseconds). These are NOT the paper's Table 1
     * values, which were not available to us; pass the paper's table with {@link #parse} to use it.
     */
    public static final String EC2_FIVE_SITES_TEXT = String.join(";",
            "JP,CA,OR,VA,IE",
            "0,103,89,145,212",
            "103,0,19,72,153",
            "89,19,0,87,137",
            "145,72,87,0,81",
            "212,153,137,81,0");

    private static final List<String> PRESETS = List.of("ec2-five-sites");

    private final List<String> sites;
    private final long[][] rttNanos;

    private LatencyMatrix(List<String> sites, long[][] rttNanos) {
        this.sites = List.copyOf(sites);
        this.rttNanos = rttNanos;
    }

    /** Preset names {@link #named} accepts. */
    public static List<String> presets() {
        return PRESETS;
    }

    /** A preset by name ({@code ec2-five-sites}). */
    public static LatencyMatrix named(String name) {
        if ("ec2-five-sites".equals(name.toLowerCase(Locale.ROOT))) {
            return parse(EC2_FIVE_SITES_TEXT);
        }
        throw new IllegalArgumentException("unknown latency preset '" + name + "' (expected one of " + String.join(", ", PRESETS) + ")");
    }

    /** Parses the text form; a malformed matrix is an {@link IllegalArgumentException} naming the line and the problem. */
    public static LatencyMatrix parse(String text) {
        List<String> lines = new ArrayList<>();
        for (String raw : text.split("[;\\n]")) {
            int comment = raw.indexOf('#');
            String line = (comment >= 0 ? raw.substring(0, comment) : raw).trim();
            if (!line.isEmpty()) {
                lines.add(line);
            }
        }
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("latency matrix is empty (expected a line of site names, then one line of RTTs per site)");
        }
        List<String> sites = new ArrayList<>();
        for (String name : lines.get(0).split(",")) {
            String site = name.trim();
            if (site.isEmpty() || sites.contains(site)) {
                throw new IllegalArgumentException("latency matrix: site names must be non-empty and distinct, got '" + lines.get(0) + "'");
            }
            sites.add(site);
        }
        int n = sites.size();
        if (n < 1 || n > SimConfig.MAX_NODES) {
            throw new IllegalArgumentException("latency matrix: " + n + " sites, expected 1.." + SimConfig.MAX_NODES);
        }
        if (lines.size() != n + 1) {
            throw new IllegalArgumentException("latency matrix: " + n + " sites need " + n + " rows of RTTs, got " + (lines.size() - 1));
        }
        long[][] rtt = new long[n][n];
        for (int row = 0; row < n; row++) {
            String[] cells = lines.get(row + 1).split(",");
            if (cells.length != n) {
                throw new IllegalArgumentException("latency matrix: row for " + sites.get(row) + " has " + cells.length + " values, expected " + n);
            }
            for (int col = 0; col < n; col++) {
                double millis;
                try {
                    millis = Double.parseDouble(cells[col].trim());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("latency matrix: row for " + sites.get(row) + ": '" + cells[col].trim()
                            + "' is not a number of milliseconds");
                }
                if (!(millis >= 0 && millis <= MAX_RTT_MILLIS)) {
                    throw new IllegalArgumentException("latency matrix: RTT " + sites.get(row) + "->" + sites.get(col) + " must be 0.."
                            + (long) MAX_RTT_MILLIS + " ms, got " + cells[col].trim());
                }
                if (row == col && millis != 0) {
                    throw new IllegalArgumentException("latency matrix: RTT of " + sites.get(row) + " to itself must be 0, got " + millis);
                }
                rtt[row][col] = Math.round(millis * SimTiming.MILLIS);
            }
        }
        return new LatencyMatrix(sites, rtt);
    }

    public int size() {
        return sites.size();
    }

    public List<String> sites() {
        return sites;
    }

    /** The index of a site by name, or -1. */
    public int indexOf(String site) {
        return sites.indexOf(site);
    }

    public long rttNanos(int from, int to) {
        return rttNanos[from][to];
    }

    /** The largest RTT between two sites. */
    public long maxRttNanos() {
        long max = 0;
        for (long[] row : rttNanos) {
            for (long rtt : row) {
                max = Math.max(max, rtt);
            }
        }
        return max;
    }

    /** Half the RTT: the propagation delay of one message from {@code from} to {@code to}. */
    public long oneWayNanos(int from, int to) {
        return rttNanos[from][to] / 2;
    }

    /** The text form, parseable by {@link #parse}. */
    public String toText() {
        StringBuilder out = new StringBuilder(String.join(",", sites));
        for (long[] row : rttNanos) {
            out.append(';');
            for (int i = 0; i < row.length; i++) {
                out.append(i == 0 ? "" : ",").append(formatMillis(row[i]));
            }
        }
        return out.toString();
    }

    private static String formatMillis(long nanos) {
        return nanos % SimTiming.MILLIS == 0 ? Long.toString(nanos / SimTiming.MILLIS)
                : Double.toString(nanos / (double) SimTiming.MILLIS);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LatencyMatrix m && m.sites.equals(sites) && Arrays.deepEquals(m.rttNanos, rttNanos);
    }

    @Override
    public int hashCode() {
        return sites.hashCode() * 31 + Arrays.deepHashCode(rttNanos);
    }

    @Override
    public String toString() {
        return toText();
    }
}
