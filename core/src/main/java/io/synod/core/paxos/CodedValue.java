package io.synod.core.paxos;

import io.synod.core.util.Check;
import java.util.Arrays;

/**
 * How the payload of a coded entry was coded (RS-Paxos, Mu et al. 2014, §4): into
 * {@code dataShards} (X) data shards out of {@code totalShards} (N), for a value of
 * {@code valueLength} bytes with CRC32C {@code valueChecksum}; and which shard this copy of the entry
 * holds ({@code shard}: an encoded {@link io.synod.core.erasure.ValueShard}, or null when this copy
 * holds none). The coding is recorded in the entry, so every entry keeps the coding it was written
 * with (§4.6). Two coded entries with the same client id, sequence, length and checksum hold shards
 * of one value.
 *
 * <p>{@code header} (deferred follower rebuild, docs/erasure.md) is the uncoded part of the command the
 * state machine needs to apply it without its value bytes ({@link AppliedState#deferralHeader}), or
 * null: then the value must be rebuilt to be applied. The leader derives it from the whole payload, so
 * it is a function of the value and not part of the "same value" test (length and CRC32C identify the
 * value); whoever rebuilds the value checks the header against it ({@link AppliedState#resolve}).
 */
public record CodedValue(int dataShards, int totalShards, int valueLength, int valueChecksum, byte[] shard, byte[] header) {
    public CodedValue {
        Check.argument(dataShards >= 2 && dataShards < totalShards && totalShards <= ReplicaConfig.MAX_CLUSTER_SIZE,
                "coded value needs 2 <= X < N <= %d, got X=%d N=%d", ReplicaConfig.MAX_CLUSTER_SIZE, dataShards, totalShards);
        Check.argument(valueLength > 0, "a coded value is never empty, got length %d", valueLength);
        Check.argument(header == null || header.length < valueLength, "a deferral header of %s bytes is not shorter than the value (%d bytes)",
                header == null ? 0 : header.length, valueLength);
    }

    /** A coded value without a deferral header (followers rebuild it to apply it). */
    public CodedValue(int dataShards, int totalShards, int valueLength, int valueChecksum, byte[] shard) {
        this(dataShards, totalShards, valueLength, valueChecksum, shard, null);
    }

    /** The same coding with {@code newShard} (or none). */
    public CodedValue withShard(byte[] newShard) {
        return new CodedValue(dataShards, totalShards, valueLength, valueChecksum, newShard, header);
    }

    /** Same coding and same value (length and checksum); the shards held may differ. */
    boolean sameValue(CodedValue other) {
        return other != null && other.dataShards == dataShards && other.totalShards == totalShards
                && other.valueLength == valueLength && other.valueChecksum == valueChecksum;
    }

    int shardBytes() {
        return shard == null ? 0 : shard.length;
    }

    int headerBytes() {
        return header == null ? 0 : header.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CodedValue c && sameValue(c) && Arrays.equals(c.shard, shard) && Arrays.equals(c.header, header);
    }

    @Override
    public int hashCode() {
        return ((dataShards * 31 + totalShards) * 31 + valueLength) * 31 + valueChecksum;
    }

    @Override
    public String toString() {
        return "coded(" + dataShards + "/" + totalShards + "," + valueLength + "B" + (shard == null ? ",no shard" : "")
                + (header == null ? "" : ",header " + header.length + "B") + ")";
    }
}
