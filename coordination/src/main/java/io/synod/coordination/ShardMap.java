package io.synod.coordination;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The range-to-group map (docs/architecture.md; PaxStore §3.1 range partitioning). The
 * key space, ordered as unsigned bytes lexicographically, is cut into contiguous ranges; range i
 * covers keys from {@code start(i)} (inclusive) to {@code start(i+1)} (exclusive), the first range
 * starts at the empty key and the last is unbounded. Each range belongs to one group in 0..G-1.
 *
 * <p>An immutable value with no ZooKeeper dependency, so the client SDK can route with it. The
 * {@code generation} grows with every change, letting a holder of two maps tell which is newer.
 *
 * <p>Encoding (big-endian): {@code u8 format=1, i64 generation, i32 groupCount, i32 rangeCount,
 * rangeCount x (i32 group, u16 startLength, startLength bytes)}. {@link #decode} checks every
 * length against the bounds below before it allocates.
 */
public final class ShardMap {

    public static final int FORMAT_VERSION = 1;
    /** Most ranges one map may hold. */
    public static final int MAX_RANGES = 65_536;
    /** Longest range start key, bytes. */
    public static final int MAX_KEY_BYTES = 1024;
    /** {@link #uniform} splits on the first key byte, so at most 256 groups. */
    public static final int MAX_UNIFORM_GROUPS = 256;

    /** The printable ASCII bytes 0x21..0x7E that {@link #uniform} divides for small group counts. */
    static final int FIRST_PRINTABLE = 0x21;
    static final int PRINTABLE_SPAN = 0x7E - FIRST_PRINTABLE + 1;

    private final long generation;
    private final int groupCount;
    private final byte[][] starts;
    private final int[] groups;

    private ShardMap(long generation, int groupCount, byte[][] starts, int[] groups) {
        this.generation = generation;
        this.groupCount = groupCount;
        this.starts = starts;
        this.groups = groups;
    }

    /** One range of the map. */
    public record Range(byte[] startInclusive, int group) {
        public Range {
            startInclusive = startInclusive.clone();
        }

        @Override
        public byte[] startInclusive() {
            return startInclusive.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Range r && r.group == group && Arrays.equals(r.startInclusive, startInclusive);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(startInclusive) + group;
        }

        @Override
        public String toString() {
            return "Range[start=" + hex(startInclusive) + ", group=" + group + "]";
        }
    }

    /**
     * Builds a map from its ranges.
     *
     * @throws IllegalArgumentException if the first range does not start at the empty key, starts
     *         are not strictly increasing, a group is outside 0..groupCount-1, or a bound is exceeded
     */
    public static ShardMap of(long generation, int groupCount, List<Range> ranges) {
        Objects.requireNonNull(ranges, "ranges");
        String problem = check(generation, groupCount, ranges.size());
        if (problem != null) {
            throw new IllegalArgumentException("shard map: " + problem);
        }
        byte[][] starts = new byte[ranges.size()][];
        int[] groups = new int[ranges.size()];
        for (int i = 0; i < ranges.size(); i++) {
            starts[i] = ranges.get(i).startInclusive;
            groups[i] = ranges.get(i).group;
            problem = checkRange(i, starts, groups, groupCount);
            if (problem != null) {
                throw new IllegalArgumentException("shard map: " + problem);
            }
        }
        return new ShardMap(generation, groupCount, starts, groups);
    }

    /**
     * G ranges on the first key byte, range i belonging to group i, generation 1. Keys are usually
     * text (UTF-8 names such as {@code user/42}), whose first byte is almost always printable ASCII
     * and never a UTF-8 continuation byte (0x80..0xBF); an even split of all 256 byte values would
     * leave groups empty. So for G up to {@value #PRINTABLE_SPAN} groups the split points divide the
     * printable range 0x21..0x7E evenly (range 0 also takes everything below 0x21, the last range
     * everything above); for more groups the split is even over all 256 byte values.
     */
    public static ShardMap uniform(int groupCount) {
        if (groupCount < 1 || groupCount > MAX_UNIFORM_GROUPS) {
            throw new IllegalArgumentException("shard map: uniform split needs 1.." + MAX_UNIFORM_GROUPS
                    + " groups, got " + groupCount);
        }
        List<Range> ranges = new ArrayList<>(groupCount);
        ranges.add(new Range(new byte[0], 0));
        boolean printable = groupCount <= PRINTABLE_SPAN;
        for (int g = 1; g < groupCount; g++) {
            int start = printable ? FIRST_PRINTABLE + g * PRINTABLE_SPAN / groupCount : g * 256 / groupCount;
            ranges.add(new Range(new byte[] {(byte) start}, g));
        }
        return of(1, groupCount, ranges);
    }

    private static String check(long generation, int groupCount, int rangeCount) {
        if (generation < 0) {
            return "generation must be >= 0, got " + generation;
        }
        if (groupCount < 1 || groupCount > GroupConfig.MAX_GROUPS) {
            return "group count must be 1.." + GroupConfig.MAX_GROUPS + ", got " + groupCount;
        }
        if (rangeCount < 1 || rangeCount > MAX_RANGES) {
            return "range count must be 1.." + MAX_RANGES + ", got " + rangeCount;
        }
        return null;
    }

    private static String checkRange(int i, byte[][] starts, int[] groups, int groupCount) {
        if (starts[i].length > MAX_KEY_BYTES) {
            return "range " + i + " start key length " + starts[i].length + " exceeds " + MAX_KEY_BYTES;
        }
        if (groups[i] < 0 || groups[i] >= groupCount) {
            return "range " + i + " group " + groups[i] + " outside 0.." + (groupCount - 1);
        }
        if (i == 0 && starts[0].length != 0) {
            return "the first range must start at the empty key, got " + hex(starts[0]);
        }
        if (i > 0 && Arrays.compareUnsigned(starts[i - 1], starts[i]) >= 0) {
            return "range starts must be strictly increasing, range " + i + " starts at " + hex(starts[i])
                    + " after " + hex(starts[i - 1]);
        }
        return null;
    }

    /** The group owning {@code key}: binary search for the last range starting at or before it. */
    public int groupFor(byte[] key) {
        int lo = 0;
        int hi = starts.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (Arrays.compareUnsigned(starts[mid], key) <= 0) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return groups[lo];
    }

    public long generation() {
        return generation;
    }

    /** G: groups are numbered 0..G-1. */
    public int groupCount() {
        return groupCount;
    }

    public int rangeCount() {
        return starts.length;
    }

    public List<Range> ranges() {
        List<Range> out = new ArrayList<>(starts.length);
        for (int i = 0; i < starts.length; i++) {
            out.add(new Range(starts[i], groups[i]));
        }
        return out;
    }

    /** The same ranges with another generation (for the next compare-and-set). */
    public ShardMap withGeneration(long next) {
        return of(next, groupCount, ranges());
    }

    public byte[] encode() {
        ZnodeWriter w = new ZnodeWriter().u8(FORMAT_VERSION).i64(generation).i32(groupCount).i32(starts.length);
        for (int i = 0; i < starts.length; i++) {
            w.i32(groups[i]).bytes(starts[i], MAX_KEY_BYTES, "range start");
        }
        return w.toByteArray();
    }

    /**
     * Decodes {@link #encode}'s format.
     *
     * @throws MetadataFormatException naming the fault (truncation, bad version, bad bound, order)
     */
    public static ShardMap decode(byte[] bytes) {
        ZnodeReader r = new ZnodeReader(bytes, "shard map");
        r.formatVersion(FORMAT_VERSION);
        long generation = r.i64("generation");
        int groupCount = r.i32("group count");
        int rangeCount = r.i32("range count");
        String problem = check(generation, groupCount, rangeCount);
        if (problem != null) {
            throw r.error(problem);
        }
        // Each range takes at least 6 bytes: reject a count the data cannot hold before allocating.
        byte[][] starts = new byte[Math.min(rangeCount, bytes.length / 6 + 1)][];
        if (starts.length < rangeCount) {
            throw r.error("range count " + rangeCount + " cannot fit in " + bytes.length + " bytes");
        }
        int[] groups = new int[rangeCount];
        for (int i = 0; i < rangeCount; i++) {
            groups[i] = r.i32("range " + i + " group");
            starts[i] = r.bytes("range " + i + " start", MAX_KEY_BYTES);
            problem = checkRange(i, starts, groups, groupCount);
            if (problem != null) {
                throw r.error(problem);
            }
        }
        r.end();
        return new ShardMap(generation, groupCount, starts, groups);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ShardMap m && m.generation == generation && m.groupCount == groupCount
                && Arrays.equals(m.groups, groups) && Arrays.deepEquals(m.starts, starts);
    }

    @Override
    public int hashCode() {
        return Objects.hash(generation, groupCount, Arrays.hashCode(groups), Arrays.deepHashCode(starts));
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("ShardMap[generation=").append(generation)
                .append(", groups=").append(groupCount).append(", ranges=");
        for (int i = 0; i < starts.length && i < 16; i++) {
            sb.append(i == 0 ? "" : " ").append(hex(starts[i])).append("->").append(groups[i]);
        }
        if (starts.length > 16) {
            sb.append(" ... (").append(starts.length).append(" ranges)");
        }
        return sb.append(']').toString();
    }

    static String hex(byte[] b) {
        if (b.length == 0) {
            return "''";
        }
        StringBuilder sb = new StringBuilder("0x");
        for (int i = 0; i < b.length && i < 32; i++) {
            sb.append(Character.forDigit((b[i] >> 4) & 0xf, 16)).append(Character.forDigit(b[i] & 0xf, 16));
        }
        return b.length > 32 ? sb.append("...").toString() : sb.toString();
    }
}
