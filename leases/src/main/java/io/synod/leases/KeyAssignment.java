package io.synod.leases;

import java.nio.charset.StandardCharsets;

/**
 * A lease configuration (Moraru et al., SoCC 2014, §3): which replicas hold a read lease on which key.
 * Answers a bit set (bit i = node i). A key the policy cannot name ({@code null}) is held by everyone:
 * a command whose key is unknown may write any key. Must be the same pure function at every replica.
 */
@FunctionalInterface
public interface KeyAssignment {
    long holders(String key, int clusterSize);

    /**
     * The holders of {@code key} among {@code voters} (bit i = node i): this assignment over the voters' ranks, bit
     * r naming the r-th lowest voter id, so the lease configuration is recomputed from the membership in force
     * (docs/membership.md, rule QL1). With every node voting it is {@link #holders} itself.
     */
    default long holdersAmong(String key, long voters) {
        int count = Long.bitCount(voters);
        if (count == 0) {
            return 0;
        }
        long ranks = holders(key, count);
        long bits = 0;
        int rank = 0;
        for (long rest = voters; rest != 0; rest &= rest - 1, rank++) {
            if ((ranks & (1L << rank)) != 0) {
                bits |= Long.lowestOneBit(rest);
            }
        }
        return bits;
    }

    /** Every replica holds every key: Megastore's leases (Baker et al., CIDR 2011, §4.4.1). */
    KeyAssignment ALL = (key, clusterSize) -> allNodes(clusterSize);

    /**
     * A static quorum-lease configuration: key k is held by the ⌊N/2⌋ + 1 replicas that follow a hash
     * of k around the ring (a lease quorum of Moraru §3: a majority, so a holder plus ⌊N/2⌋ grantors
     * always meet every write quorum). Static: not agreed through the log, not derived from read
     * statistics (docs/leases.md, not done).
     */
    KeyAssignment HASHED_MAJORITY = (key, clusterSize) -> {
        if (key == null) {
            return allNodes(clusterSize);
        }
        int start = Math.floorMod(fnv(key), clusterSize);
        long bits = 0;
        for (int i = 0; i <= clusterSize / 2; i++) {
            bits |= 1L << ((start + i) % clusterSize);
        }
        return bits;
    };

    static long allNodes(int clusterSize) {
        return clusterSize >= 64 ? -1L : (1L << clusterSize) - 1;
    }

    /** FNV-1a over the key's UTF-8 bytes: stable across JVMs (String.hashCode would do too, but says less). */
    private static int fnv(String key) {
        int hash = 0x811C9DC5;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xFF;
            hash *= 0x01000193;
        }
        return hash;
    }
}
