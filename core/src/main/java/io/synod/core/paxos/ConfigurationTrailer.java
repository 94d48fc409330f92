package io.synod.core.paxos;

import java.util.Arrays;

/**
 * The group configuration a snapshot records after its slot, in the session table's trailer
 * ({@link ClientSessions#encode(byte[])}), so that changes survive compaction, snapshot transfer and
 * restarts (docs/erasure.md rule C4, docs/membership.md rule M7): the coding's parameters
 * ({@link Coding#encodeParameters()}) once the coding changed, then the {@link GroupMembership} once the
 * membership changed. A group whose configuration never changed writes no trailer, so its snapshots
 * stay byte for byte what they were; one whose coding alone changed writes what it wrote before.
 */
final class ConfigurationTrailer {
    private ConfigurationTrailer() {
    }

    /** The trailer for the configuration {@code ctx} has applied, or null if it is the initial one. */
    static byte[] encode(ReplicaContext ctx) {
        byte[] coding = ctx.coding.sameParameters(ctx.initialCoding) ? new byte[0] : ctx.coding.encodeParameters();
        if (ctx.membership.equals(ctx.initialMembership)) {
            return coding.length == 0 ? null : coding;
        }
        byte[] membership = ctx.membership.encode();
        byte[] out = Arrays.copyOf(coding, coding.length + membership.length);
        System.arraycopy(membership, 0, out, coding.length, membership.length);
        return out;
    }

    /** The coding {@code trailer} records, or {@code initial} if it records none. */
    static Coding coding(Coding initial, byte[] trailer) {
        int membershipAt = membershipOffset(trailer);
        if (trailer == null || membershipAt == 0) {
            return initial;
        }
        return Coding.decodeParameters(initial, membershipAt < 0 ? trailer : Arrays.copyOf(trailer, membershipAt));
    }

    /** The membership {@code trailer} records, or {@code initial} if it records none. */
    static GroupMembership membership(GroupMembership initial, byte[] trailer) {
        int at = membershipOffset(trailer);
        return at < 0 ? initial : GroupMembership.decode(Arrays.copyOfRange(trailer, at, trailer.length));
    }

    /** Where the membership part starts (0 without a coding part), or -1 if there is none. */
    private static int membershipOffset(byte[] trailer) {
        if (trailer == null) {
            return -1;
        }
        int size = GroupMembership.encodedBytes();
        if (trailer.length >= size && GroupMembership.isEncoded(trailer, trailer.length - size)) {
            return trailer.length - size;
        }
        return -1;
    }
}
