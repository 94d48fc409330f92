package io.synod.leases;

import io.synod.core.kv.ReservedKeys;
import io.synod.core.paxos.Command;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A quorum-lease configuration agreed through the log (Moraru, Andersen, Kaminsky, SoCC 2014, §3:
 * "lease configurations ... are agreed upon through Paxos"): which replicas hold a read lease on which
 * keys. Keys are named by a 64-bit hash ({@link #keyHash}), so that read statistics fit in fixed-size
 * lease messages; two keys with the same hash share their holders (only a cost, never a safety issue:
 * every replica maps a key through the same function). Keys not listed are held by
 * {@link #defaultHolders()} (the proposing leader: Moraru's lease quorum is the leader plus the readers
 * of a key).
 *
 * <p>It travels as a key-value {@code put} of {@link #KEY} (so the key-value state machine stores it
 * and every snapshot carries it), and its <b>version</b> is the slot of that put: the key's version in
 * the state machine ({@link KvCommand.GetVersioned}), the same at every replica, unique and growing in
 * log order. Version 0 (nothing stored yet) is the static {@link KeyAssignment} the policy starts with.
 */
public final class LeaseConfiguration {
    /** The reserved key-value key the configuration is stored under (clients cannot change it: {@link ReservedKeys}). */
    public static final String KEY = ReservedKeys.PREFIX + "quorum-lease-config";
    /** The client id of configuration commands (their sequence number is their slot: never a retry). */
    public static final long CLIENT_ID = ReservedKeys.CLIENT_ID;
    /** Bound on the keys one configuration lists. */
    public static final int MAX_KEYS = 4096;

    private static final int MAGIC = 0x514C4346; // "QLCF"
    private static final byte[] READ_COMMAND = new KvCommand.GetVersioned(KEY).encode();
    /** The reserved key as every key-value command encodes it after its tag byte: u16 length, UTF-8 bytes. */
    private static final byte[] KEY_FIELD = Arrays.copyOfRange(READ_COMMAND, 1, READ_COMMAND.length);

    private final long version;
    private final long defaultHolders;
    private final long[] hashes; // sorted
    private final long[] holders;
    private final KeyAssignment initial; // version 0 only

    private LeaseConfiguration(long version, long defaultHolders, long[] hashes, long[] holders, KeyAssignment initial) {
        this.version = version;
        this.defaultHolders = defaultHolders;
        this.hashes = hashes;
        this.holders = holders;
        this.initial = initial;
    }

    /** Version 0: the static assignment in force before any configuration entry applied. */
    public static LeaseConfiguration initial(KeyAssignment assignment) {
        return new LeaseConfiguration(0, 0, new long[0], new long[0], assignment);
    }

    /**
     * A configuration listing {@code keyHashes[i]} → {@code keyHolders[i]} (bit sets), every other key
     * held by {@code defaultHolders}; its version is not known until it is applied (see {@link #at}).
     */
    public static LeaseConfiguration of(long defaultHolders, long[] keyHashes, long[] keyHolders) {
        if (keyHashes.length != keyHolders.length || keyHashes.length > MAX_KEYS) {
            throw new IllegalArgumentException("lease configuration needs as many holder sets as keys and at most "
                    + MAX_KEYS + " keys, got " + keyHashes.length + " / " + keyHolders.length);
        }
        Integer[] order = new Integer[keyHashes.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Long.compare(keyHashes[a], keyHashes[b]));
        long[] h = new long[order.length];
        long[] b = new long[order.length];
        for (int i = 0; i < order.length; i++) {
            h[i] = keyHashes[order[i]];
            b[i] = keyHolders[order[i]];
            if (i > 0 && h[i] == h[i - 1]) {
                throw new IllegalArgumentException("lease configuration lists key hash " + h[i] + " twice");
            }
        }
        return new LeaseConfiguration(-1, defaultHolders, h, b, null);
    }

    /** This configuration as applied at {@code slot} (its version). */
    LeaseConfiguration at(long slot) {
        return new LeaseConfiguration(slot, defaultHolders, hashes, holders, initial);
    }

    public long version() {
        return version;
    }

    public long defaultHolders() {
        return defaultHolders;
    }

    public int keyCount() {
        return hashes.length;
    }

    /** Holders of {@code key} (bit i = node i); a key the policy cannot name (null) is held by everyone. */
    public long holders(String key, int clusterSize) {
        if (initial != null) {
            return initial.holders(key, clusterSize);
        }
        if (key == null) {
            return KeyAssignment.allNodes(clusterSize);
        }
        int i = Arrays.binarySearch(hashes, keyHash(key));
        return i >= 0 ? holders[i] : defaultHolders;
    }

    /**
     * Holders of {@code key} among {@code voters} (bit i = replica id i), recomputed from the membership in force
     * (docs/membership.md, rule QL5): version 0 is the static assignment over the voters' ranks, as for the static
     * configuration (QL1); a configuration entry names replica ids, and only those that vote hold. With every id
     * voting it is {@link #holders} itself.
     */
    public long holdersAmong(String key, long voters) {
        if (initial != null) {
            return initial.holdersAmong(key, voters);
        }
        return key == null ? voters : holders(key, Long.SIZE) & voters;
    }

    /** The holders this configuration lists for a key hash (0 if it does not list it). */
    long holdersOfHash(long hash) {
        int i = Arrays.binarySearch(hashes, hash);
        return i >= 0 ? holders[i] : 0;
    }

    /** Same holders for every key (a version's number does not count). */
    public boolean sameAssignment(LeaseConfiguration other) {
        return other != null && initial == other.initial && defaultHolders == other.defaultHolders
                && Arrays.equals(hashes, other.hashes) && Arrays.equals(holders, other.holders);
    }

    /** A key's 64-bit hash (FNV-1a 64 over its UTF-8 bytes): stable across JVMs and replicas. */
    public static long keyHash(String key) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xFF;
            hash *= 0x100000001b3L;
        }
        return hash;
    }

    /** The log entry's command that makes this configuration current when it applies, proposed at {@code slot}. */
    public Command command(long slot) {
        ByteBuffer out = ByteBuffer.allocate(4 + 8 + 4 + hashes.length * 16);
        out.putInt(MAGIC).putLong(defaultHolders).putInt(hashes.length);
        for (int i = 0; i < hashes.length; i++) {
            out.putLong(hashes[i]).putLong(holders[i]);
        }
        return new Command(CLIENT_ID, slot, new KvCommand.Put(KEY, out.array()).encode());
    }

    /**
     * Whether {@code command} may change the stored configuration: any key-value command on the reserved
     * key, whoever sent it (only the leader's policy should; a client's write of the key is treated as a
     * change too, so the leader's rules stay conservative). Compares bytes, no decoding.
     */
    public static boolean isConfigurationCommand(Command command) {
        byte[] payload = command.payload();
        if (payload.length < 1 + KEY_FIELD.length) {
            return false;
        }
        for (int i = 0; i < KEY_FIELD.length; i++) {
            if (payload[1 + i] != KEY_FIELD[i]) {
                return false;
            }
        }
        return true;
    }

    /** The configuration a command of {@link #command} carries (version unknown); throws on bad bytes. */
    static LeaseConfiguration decodeCommand(byte[] payload) {
        KvCommand command = KvCommand.decode(payload);
        if (!(command instanceof KvCommand.Put put) || !KEY.equals(put.key())) {
            throw new IllegalArgumentException("not a lease configuration command: " + command);
        }
        return decodeValue(put.value());
    }

    /** The read-only state-machine command that reads the stored configuration and its version. */
    static byte[] readCommand() {
        return READ_COMMAND.clone();
    }

    /**
     * The configuration stored in the state machine, from its answer to {@link #readCommand()}: the
     * {@code initial} assignment (version 0) if none is stored; throws on bad bytes.
     */
    static LeaseConfiguration fromState(byte[] result, KeyAssignment initialAssignment) {
        KvResult decoded = KvResult.decode(result);
        if (!(decoded instanceof KvResult.Versioned v)) {
            throw new IllegalArgumentException("lease configuration read answered " + decoded);
        }
        if (v.value() == null || v.version() == 0) {
            return initial(initialAssignment);
        }
        return decodeValue(v.value()).at(v.version());
    }

    private static LeaseConfiguration decodeValue(byte[] value) {
        try {
            ByteBuffer in = ByteBuffer.wrap(value);
            if (in.getInt() != MAGIC) {
                throw new IllegalArgumentException("lease configuration has a bad magic number");
            }
            long defaults = in.getLong();
            int count = in.getInt();
            if (count < 0 || count > MAX_KEYS || count * 16L != in.remaining()) {
                throw new IllegalArgumentException("lease configuration lists " + count + " keys in " + in.remaining()
                        + " bytes (at most " + MAX_KEYS + ", 16 bytes each)");
            }
            long[] h = new long[count];
            long[] b = new long[count];
            for (int i = 0; i < count; i++) {
                h[i] = in.getLong();
                b[i] = in.getLong();
                if (i > 0 && h[i] <= h[i - 1]) {
                    throw new IllegalArgumentException("lease configuration keys are not sorted and distinct");
                }
            }
            return new LeaseConfiguration(-1, defaults, h, b, null);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("lease configuration is truncated", e);
        }
    }

    @Override
    public String toString() {
        return initial != null ? "lease-config(v0, " + initial + ")"
                : "lease-config(v" + version + ", " + hashes.length + " keys, default " + Long.toBinaryString(defaultHolders) + ")";
    }
}
