package io.synod.leases;

import io.synod.protocol.KvCommand;

/**
 * Which key a state-machine command touches, for lease rules that work per key (LeaseGuard's limbo
 * region, §3.3; Moraru's per-key lease quorums, §3). {@code null} means "unknown": the policy must
 * then assume the command may touch every key.
 */
@FunctionalInterface
public interface KeyExtractor {
    String keyOf(byte[] payload);

    /** The key-value state machine's commands ({@link KvCommand}); a payload that does not decode is unknown. */
    KeyExtractor KV = payload -> {
        if (payload == null || payload.length == 0) {
            return null;
        }
        try {
            return KvCommand.decode(payload).key();
        } catch (IllegalArgumentException e) {
            return null;
        }
    };
}
