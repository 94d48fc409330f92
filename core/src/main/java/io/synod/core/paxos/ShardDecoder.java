package io.synod.core.paxos;

import io.synod.core.erasure.ShardFormatException;
import io.synod.core.erasure.ValueCoder;
import io.synod.core.erasure.ValueShard;
import java.util.ArrayList;
import java.util.List;

/**
 * Rebuilds a coded value from encoded shards: what phase 1 and a recovery read do once they hold
 * shards of one value. The real decoder checks every shard's CRC32C (a corrupt shard counts as
 * missing) and the rebuilt value's CRC32C; the simulator's negative controls replace it with one
 * that skips those checks, to show that the checks matter.
 */
public interface ShardDecoder {
    /** Shards (by distinct index) among {@code encoded} that count toward a rebuild. */
    int usableShards(CodedValue coding, List<byte[]> encoded);

    /**
     * The value, or null if {@code encoded} does not hold {@code coding.dataShards()} usable shards
     * of it (or they do not rebuild a value matching its checksum).
     */
    byte[] rebuild(CodedValue coding, List<byte[]> encoded);

    /** Checks every shard and the rebuilt value with CRC32C (io.synod.core.erasure). */
    ShardDecoder CHECKED = new ShardDecoder() {
        @Override
        public int usableShards(CodedValue coding, List<byte[]> encoded) {
            return intact(coding, encoded).size();
        }

        @Override
        public byte[] rebuild(CodedValue coding, List<byte[]> encoded) {
            List<ValueShard> shards = intact(coding, encoded);
            if (shards.size() < coding.dataShards()) {
                return null;
            }
            try {
                return new ValueCoder(coding.dataShards(), coding.totalShards() - coding.dataShards()).decode(shards);
            } catch (IllegalArgumentException inconsistent) {
                return null; // The shards disagree or the value fails its checksum: not rebuilt.
            }
        }

        /** The intact shards of exactly this value, one per index. */
        private List<ValueShard> intact(CodedValue coding, List<byte[]> encoded) {
            boolean[] seen = new boolean[coding.totalShards()];
            List<ValueShard> shards = new ArrayList<>();
            for (byte[] bytes : encoded) {
                ValueShard shard;
                try {
                    shard = ValueShard.fromBytes(bytes);
                } catch (ShardFormatException corrupt) {
                    continue; // Counts as missing.
                }
                if (shard.dataShardCount() != coding.dataShards() || shard.parityShardCount() != coding.totalShards() - coding.dataShards()
                        || shard.valueLength() != coding.valueLength() || shard.valueChecksum() != coding.valueChecksum()
                        || seen[shard.index()]) {
                    continue;
                }
                seen[shard.index()] = true;
                shards.add(shard);
            }
            return shards;
        }

        @Override
        public String toString() {
            return "checked";
        }
    };
}
