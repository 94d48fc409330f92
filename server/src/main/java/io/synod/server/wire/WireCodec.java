package io.synod.server.wire;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.CodedValue;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.LeaseStamp;
import io.synod.core.paxos.Message;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The versioned binary format of {@link WireFrame}s (big-endian). A frame body is
 * {@code [version u8][type u8][fields...]}; the length prefix around it belongs to the transport.
 * Decoding checks every length and count against the bytes actually present before allocating, so
 * the largest allocation is bounded by the frame, which the transport bounded before reading it.
 */
public final class WireCodec {
    /**
     * 2: peer messages travel in {@link WireFrame.PeerBatch} frames. A build speaking 1 refuses every frame of
     * this one (and this one every frame of it) with one line naming both versions, so a node of either build
     * never half-understands the other: a cluster is upgraded all at once.
     */
    public static final int VERSION = 2;

    private static final int HELLO = 1;
    private static final int PEER = 2;
    /** Client forwarding between servers ({@link WireFrame.ForwardRequest}, {@link WireFrame.ForwardReply}). */
    private static final int FORWARD_REQUEST = 14;
    private static final int FORWARD_REPLY = 15;
    /** Many groups' peer messages to one node ({@link WireFrame.PeerBatch}): count, then (group, message) each. */
    private static final int PEER_BATCH = 16;
    /** Version, type and count: what {@link #writeBatchHeader} writes before the first item. */
    public static final int BATCH_HEADER_BYTES = 1 + 1 + 4;
    /** Smallest (group, message) item of a batch: group, message type, from, to, ballot (12). */
    private static final int MIN_PEER_ITEM_BYTES = 4 + 1 + 4 + 4 + 12;
    /** Longest identity field (role, user, cluster) of a forwarded request, in UTF-8 bytes. */
    private static final int MAX_IDENTITY_BYTES = 1024;
    // Types 3..9, 12 and 13 are the client protocol's (io.synod.protocol.ClientFrameCodec), which client
    // connections speak; a peer connection refuses them as unknown frame types. 10 and 11 stay unused (an
    // earlier format's snapshot shards).

    private static final int PREPARE = 1;
    private static final int PROMISE = 2;
    private static final int NACK = 3;
    private static final int ACCEPT = 4;
    private static final int ACCEPTED = 5;
    private static final int HEARTBEAT = 6;
    private static final int HEARTBEAT_REPLY = 7;
    private static final int INSTALL_SNAPSHOT = 8;
    private static final int SNAPSHOT_REQUEST = 9;
    private static final int SHARD_REQUEST = 10;
    private static final int SHARD_REPLY = 11;
    /** A lease policy's own message ({@link Message.Lease}: quorum-lease guard, promise, bound report; Moraru §3.5). */
    private static final int LEASE = 12;
    private static final Message.Lease.Kind[] LEASE_KINDS = Message.Lease.Kind.values();

    /** After an entry's fields on the wire: 0 = plain entry, 1 = coded (RS-Paxos metadata and shard follow). */
    private static final int PLAIN = 0;
    private static final int CODED = 1;
    /** Bit of the entry flag: a {@link LeaseStamp} follows the entry (LeaseGuard §3). */
    private static final int STAMPED = 2;
    /**
     * Bit of the entry flag, only with {@link #CODED}: the coded value's deferral header ({@link CodedValue#header()})
     * follows its shard. Entries without one are encoded exactly as before the bit existed, so logs and peers of
     * older builds stay readable; an older build refuses an entry with it as malformed (unknown flag bit).
     */
    private static final int HEADER = 4;

    /** Smallest encoding of an entry on the wire: slot, ballot (12), client id, sequence, payload length, coding flag. */
    static final int MIN_ENTRY_BYTES = 8 + 12 + 8 + 8 + 4 + 1;
    private static final int MAX_ITEMS = 1 << 20;
    private static final int MAX_CLUSTER_NAME = 256;

    private WireCodec() {}

    public static byte[] encode(WireFrame frame) {
        ByteWriter w = new ByteWriter(64);
        if (!(frame instanceof WireFrame.PeerBatch)) {
            w.u8(VERSION); // A batch's header writes the version itself.
        }
        if (frame instanceof WireFrame.Hello h) {
            w.u8(HELLO).i32(h.nodeId()).bytes(h.cluster().getBytes(StandardCharsets.UTF_8));
        } else if (frame instanceof WireFrame.PeerMessage p) {
            w.u8(PEER).i32(p.group());
            writeMessage(w, p.message());
        } else if (frame instanceof WireFrame.PeerBatch b) {
            int start = w.size();
            writeBatchHeader(w);
            for (WireFrame.PeerMessage p : b.messages()) {
                writeBatchItem(w, p);
            }
            finishBatch(w, start, b.messages().size());
        } else if (frame instanceof WireFrame.ForwardRequest f) {
            w.u8(FORWARD_REQUEST).i64(f.forwardId()).bytes(utf8(f.role())).bytes(utf8(f.user())).bytes(utf8(f.cluster()))
                    .i64(f.clientId()).i64(f.sequence()).bytes(f.payload()).u8(f.flags());
        } else if (frame instanceof WireFrame.ForwardReply f) {
            w.u8(FORWARD_REPLY).i64(f.forwardId()).i32(f.group()).i32(f.status()).i64(f.slot()).i32(f.leaderHint())
                    .bytes(f.result()).u8(f.served());
        } else {
            throw new IllegalArgumentException("unknown frame " + frame);
        }
        return w.toByteArray();
    }

    public static WireFrame decode(byte[] body) throws MalformedInputException {
        return decode(new ByteReader(body));
    }

    /** Decodes the frame body from {@code body}'s position to its limit (a view of the transport's buffer). */
    public static WireFrame decode(ByteBuffer body) throws MalformedInputException {
        return decode(new ByteReader(body));
    }

    private static WireFrame decode(ByteReader r) throws MalformedInputException {
        int version = r.u8("version") & 0xFF;
        if (version != VERSION) {
            throw new MalformedInputException("frame version " + version + " is not supported (this build speaks " + VERSION + ")");
        }
        int type = r.u8("frame type") & 0xFF;
        WireFrame frame;
        switch (type) {
            case HELLO -> {
                int node = r.i32("hello node id");
                byte[] name = r.bytes("hello cluster name");
                if (name.length > MAX_CLUSTER_NAME) {
                    throw new MalformedInputException("hello cluster name of " + name.length + " bytes is too long");
                }
                frame = new WireFrame.Hello(node, new String(name, StandardCharsets.UTF_8));
            }
            case PEER -> frame = new WireFrame.PeerMessage(r.i32("group"), readMessage(r));
            case PEER_BATCH -> {
                int n = r.count("batched peer messages", MIN_PEER_ITEM_BYTES, MAX_ITEMS);
                if (n == 0) {
                    throw new MalformedInputException("empty peer batch");
                }
                List<WireFrame.PeerMessage> messages = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    messages.add(new WireFrame.PeerMessage(r.i32("batched group"), readMessage(r)));
                }
                frame = new WireFrame.PeerBatch(messages);
            }
            case FORWARD_REQUEST -> frame = new WireFrame.ForwardRequest(r.i64("forward id"), identity(r, "forwarded role"),
                    identity(r, "forwarded user"), identity(r, "forwarded cluster"), r.i64("forwarded client id"),
                    r.i64("forwarded sequence"), r.bytes("forwarded payload"), r.u8("forwarded flags") & 0xFF);
            case FORWARD_REPLY -> frame = new WireFrame.ForwardReply(r.i64("forward id"), r.i32("forward reply group"),
                    r.i32("forward reply status"), r.i64("forward reply slot"), r.i32("forward reply leader hint"),
                    r.bytes("forward reply result"), r.u8("forward reply served") & 0xFF);
            default -> throw new MalformedInputException("unknown frame type " + type);
        }
        r.expectEnd("frame");
        return frame;
    }

    /**
     * Begins a {@link WireFrame.PeerBatch} body at the writer's end: version, type and a count of 0, which
     * {@link #finishBatch} sets. Items follow with {@link #writeBatchItem}. The transport fills one writer with
     * the length prefix, this header and the items, so a message is encoded once and its bytes copied once.
     */
    public static void writeBatchHeader(ByteWriter w) {
        w.u8(VERSION).u8(PEER_BATCH).i32(0);
    }

    /** One item of a batch: the message's group and the message. */
    public static void writeBatchItem(ByteWriter w, WireFrame.PeerMessage p) {
        w.i32(p.group());
        writeMessage(w, p.message());
    }

    /** Sets the count of the batch whose header {@link #writeBatchHeader} wrote at {@code headerAt}. */
    public static void finishBatch(ByteWriter w, int headerAt, int count) {
        w.setI32(headerAt + 2, count);
    }

    /** About how many bytes {@link #writeBatchItem} writes for {@code p}: to size a buffer, not a bound. */
    public static int sizeHint(WireFrame.PeerMessage p) {
        Message m = p.message();
        long bytes = 64;
        List<Entry> entries = m instanceof Message.Accept a ? a.entries() : m instanceof Message.Promise pr ? pr.accepted() : List.of();
        for (Entry e : entries) {
            bytes += 64 + e.command().payload().length + (e.coded() != null && e.coded().shard() != null ? e.coded().shard().length : 0);
        }
        if (m instanceof Message.InstallSnapshot s) {
            bytes += s.chunk().length;
        }
        return (int) Math.min(bytes, Integer.MAX_VALUE / 2);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String identity(ByteReader r, String what) throws MalformedInputException {
        byte[] b = r.bytes(what);
        if (b.length > MAX_IDENTITY_BYTES) {
            throw new MalformedInputException(what + " of " + b.length + " bytes is too long (at most " + MAX_IDENTITY_BYTES + ")");
        }
        return new String(b, StandardCharsets.UTF_8);
    }

    // ---- core messages ----------------------------------------------------------------------

    private static void writeMessage(ByteWriter w, Message m) {
        if (m instanceof Message.Prepare p) {
            header(w, PREPARE, m).i64(p.fromSlot());
        } else if (m instanceof Message.Promise p) {
            header(w, PROMISE, m).i64(p.fromSlot()).i64(p.snapshotSlot()).i64(p.nextSlot());
            writeEntries(w, p.accepted());
        } else if (m instanceof Message.Nack n) {
            header(w, NACK, m);
            writeBallot(w, n.rejected());
        } else if (m instanceof Message.Accept a) {
            header(w, ACCEPT, m).i64(a.leaderCommit());
            writeEntries(w, a.entries());
        } else if (m instanceof Message.Accepted a) {
            header(w, ACCEPTED, m).i64(a.appliedSlot()).i32(a.slots().length);
            for (long s : a.slots()) {
                w.i64(s);
            }
        } else if (m instanceof Message.Heartbeat h) {
            header(w, HEARTBEAT, m).i64(h.leaderCommit());
        } else if (m instanceof Message.HeartbeatReply h) {
            header(w, HEARTBEAT_REPLY, m).i64(h.appliedSlot());
        } else if (m instanceof Message.InstallSnapshot s) {
            header(w, INSTALL_SNAPSHOT, m).i64(s.lastIncludedSlot()).i64(s.totalBytes()).i64(s.offset()).bytes(s.chunk());
        } else if (m instanceof Message.SnapshotRequest s) {
            header(w, SNAPSHOT_REQUEST, m).i64(s.lastIncludedSlot()).i64(s.offset());
        } else if (m instanceof Message.ShardRequest s) {
            header(w, SHARD_REQUEST, m).i64(s.slot()).u8(s.wantFull() ? 1 : 0);
        } else if (m instanceof Message.ShardReply s) {
            header(w, SHARD_REPLY, m).i64(s.snapshotSlot()).u8(s.entry() == null ? 0 : 1);
            if (s.entry() != null) {
                writeEntry(w, s.entry());
            }
        } else if (m instanceof Message.Lease l) {
            header(w, LEASE, m).u8(l.kind().ordinal()).i64(l.seq()).i64(l.slotLow()).i64(l.slotHigh()).i64(l.holders());
        } else {
            throw new IllegalArgumentException("unknown message " + m);
        }
    }

    private static ByteWriter header(ByteWriter w, int type, Message m) {
        w.u8(type).i32(m.from()).i32(m.to());
        writeBallot(w, m.ballot());
        return w;
    }

    private static Message readMessage(ByteReader r) throws MalformedInputException {
        int type = r.u8("message type") & 0xFF;
        int from = r.i32("from");
        int to = r.i32("to");
        Ballot ballot = readBallot(r);
        try {
            return switch (type) {
                case PREPARE -> new Message.Prepare(from, to, ballot, r.i64("from slot"));
                case PROMISE -> {
                    long fromSlot = r.i64("from slot");
                    long snapshotSlot = r.i64("snapshot slot");
                    long nextSlot = r.i64("next slot");
                    yield new Message.Promise(from, to, ballot, fromSlot, readEntries(r), snapshotSlot, nextSlot);
                }
                case NACK -> new Message.Nack(from, to, ballot, readBallot(r));
                case ACCEPT -> {
                    long commit = r.i64("leader commit");
                    yield new Message.Accept(from, to, ballot, readEntries(r), commit);
                }
                case ACCEPTED -> {
                    long applied = r.i64("applied slot");
                    int n = r.count("accepted slots", 8, MAX_ITEMS);
                    long[] slots = new long[n];
                    for (int i = 0; i < n; i++) {
                        slots[i] = r.i64("slot");
                    }
                    yield new Message.Accepted(from, to, ballot, slots, applied);
                }
                case HEARTBEAT -> new Message.Heartbeat(from, to, ballot, r.i64("leader commit"));
                case HEARTBEAT_REPLY -> new Message.HeartbeatReply(from, to, ballot, r.i64("applied slot"));
                case INSTALL_SNAPSHOT -> {
                    long slot = r.i64("snapshot slot");
                    long total = r.i64("snapshot total bytes");
                    long offset = r.i64("chunk offset");
                    byte[] chunk = r.bytes("snapshot chunk");
                    if (slot < 0 || total < 0 || offset < 0 || offset + chunk.length > total) {
                        throw new MalformedInputException("snapshot chunk [" + offset + ", +" + chunk.length + ") of "
                                + total + " bytes at slot " + slot + " is inconsistent");
                    }
                    yield new Message.InstallSnapshot(from, to, ballot, slot, total, offset, chunk);
                }
                case SNAPSHOT_REQUEST -> new Message.SnapshotRequest(from, to, ballot, r.i64("snapshot slot"),
                        r.i64("chunk offset"));
                case SHARD_REQUEST -> {
                    long slot = r.i64("shard request slot");
                    yield new Message.ShardRequest(from, to, ballot, slot, flag(r, "shard request wants-full flag"));
                }
                case SHARD_REPLY -> {
                    long snapshotSlot = r.i64("shard reply snapshot slot");
                    if (snapshotSlot < 0) {
                        throw new MalformedInputException("negative shard reply snapshot slot " + snapshotSlot);
                    }
                    Entry entry = flag(r, "shard reply has-entry flag") ? readEntry(r) : null;
                    yield new Message.ShardReply(from, to, ballot, entry, snapshotSlot);
                }
                case LEASE -> readLease(r, from, to, ballot);
                default -> throw new MalformedInputException("unknown message type " + type);
            };
        } catch (IllegalArgumentException e) {
            throw new MalformedInputException("invalid message field: " + e.getMessage());
        }
    }

    /**
     * A {@link Message.Lease} after its header: kind (u8), seq, slotLow, slotHigh, holders (i64 each).
     * A guard's holders field is its heard-from-the-leader flag (0 or 1); a bound report's is a set of
     * node bits; a bound report's slot range is {@code 0 <= slotLow <= slotHigh}; a guard's and a promise's
     * configuration version ({@code slotLow}) and slot ({@code slotHigh}) are not negative; a read report's
     * {@code slotLow} is a key hash (any value), its count and round are not negative.
     */
    private static Message.Lease readLease(ByteReader r, int from, int to, Ballot ballot) throws MalformedInputException {
        int kindCode = r.u8("lease message kind") & 0xFF;
        if (kindCode >= LEASE_KINDS.length) {
            throw new MalformedInputException("unknown lease message kind " + kindCode + " (known 0.."
                    + (LEASE_KINDS.length - 1) + ")");
        }
        Message.Lease.Kind kind = LEASE_KINDS[kindCode];
        long seq = r.i64("lease seq");
        long low = r.i64("lease slot low");
        long high = r.i64("lease slot high");
        long holders = r.i64("lease holders");
        switch (kind) {
            case BOUND -> {
                if (low < 0 || high < low) {
                    throw new MalformedInputException("lease " + kind + " slot range [" + low + ", " + high + "] is invalid");
                }
            }
            case GUARD, PROMISE -> {
                if (low < 0 || high < 0) {
                    throw new MalformedInputException("lease " + kind + " configuration version " + low + " or slot "
                            + high + " is negative");
                }
            }
            case READS -> {
                // slotLow is a key's 64-bit hash: every value is valid.
                if (seq < 0 || high < 0) {
                    throw new MalformedInputException("lease " + kind + " read count " + seq + " or round " + high
                            + " is negative");
                }
            }
        }
        if (holders < 0 || (kind == Message.Lease.Kind.GUARD && holders > 1)) {
            throw new MalformedInputException("lease " + kind + " holders field " + holders + " is invalid");
        }
        return new Message.Lease(from, to, ballot, kind, seq, low, high, holders);
    }

    public static void writeBallot(ByteWriter w, Ballot b) {
        w.i64(b.epoch()).i32(b.nodeId());
    }

    public static Ballot readBallot(ByteReader r) throws MalformedInputException {
        long epoch = r.i64("ballot epoch");
        int node = r.i32("ballot node");
        if (epoch < 0 || node < -1) {
            throw new MalformedInputException("invalid ballot " + epoch + "." + node);
        }
        return new Ballot(epoch, node);
    }

    private static void writeEntries(ByteWriter w, List<Entry> entries) {
        w.i32(entries.size());
        for (Entry e : entries) {
            writeEntry(w, e);
        }
    }

    private static List<Entry> readEntries(ByteReader r) throws MalformedInputException {
        int n = r.count("entries", MIN_ENTRY_BYTES, MAX_ITEMS);
        List<Entry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            entries.add(readEntry(r));
        }
        return entries;
    }

    /**
     * An entry on the wire: its plain fields ({@link #writePlainEntry}), then a flag: bit 0 clear for a
     * plain entry, set for an RS-Paxos coded one followed by its {@link CodedValue} (X, N, value length,
     * value CRC32C, and the shard this copy holds, if any); bit 1 set when the entry's lease stamp
     * follows (creator ballot, earliest, latest: LeaseGuard §3, part of the value).
     */
    public static void writeEntry(ByteWriter w, Entry e) {
        writePlainEntry(w, e);
        CodedValue c = e.coded();
        LeaseStamp stamp = e.stamp();
        int stampBit = stamp == null ? 0 : STAMPED;
        if (c == null) {
            w.u8(PLAIN | stampBit);
        } else {
            w.u8(CODED | stampBit | (c.header() == null ? 0 : HEADER)).u8(c.dataShards()).u8(c.totalShards())
                    .i32(c.valueLength()).i32(c.valueChecksum()).u8(c.shard() == null ? 0 : 1);
            if (c.shard() != null) {
                w.bytes(c.shard());
            }
            if (c.header() != null) {
                w.bytes(c.header());
            }
        }
        if (stamp != null) {
            writeBallot(w, stamp.creator());
            w.i64(stamp.earliestNanos()).i64(stamp.latestNanos());
        }
    }

    /** Reads what {@link #writeEntry} wrote. */
    public static Entry readEntry(ByteReader r) throws MalformedInputException {
        long slot = r.i64("entry slot");
        Ballot ballot = readBallot(r);
        long client = r.i64("client id");
        long sequence = r.i64("sequence");
        byte[] payload = r.bytes("command payload");
        int flag = r.u8("entry coding flag") & 0xFF;
        if ((flag & ~(CODED | STAMPED | HEADER)) != 0 || (flag & (CODED | HEADER)) == HEADER) {
            throw new MalformedInputException("entry coding flag " + flag
                    + " has bits other than 1 (coded), 2 (stamped) and 4 (deferral header, only with coded)");
        }
        int coding = flag & CODED;
        CodedValue coded = null;
        if (coding == CODED) {
            int x = r.u8("coded data shards") & 0xFF;
            int n = r.u8("coded total shards") & 0xFF;
            int length = r.i32("coded value length");
            int checksum = r.i32("coded value checksum");
            byte[] shard = flag(r, "coded has-shard flag") ? r.bytes("coded shard") : null;
            byte[] header = (flag & HEADER) != 0 ? r.bytes("coded deferral header") : null;
            if (header != null && (header.length == 0 || header.length >= length)) {
                throw new MalformedInputException("coded entry at slot " + slot + " has a deferral header of " + header.length
                        + " bytes for a value of " + length + " bytes (must be 1 to length - 1)");
            }
            try {
                coded = new CodedValue(x, n, length, checksum, shard, header);
            } catch (IllegalArgumentException e) {
                throw new MalformedInputException("invalid coded entry at slot " + slot + ": " + e.getMessage());
            }
        }
        LeaseStamp stamp = null;
        if ((flag & STAMPED) != 0) {
            Ballot creator = readBallot(r);
            long earliest = r.i64("stamp earliest");
            long latest = r.i64("stamp latest");
            if (earliest > latest) {
                throw new MalformedInputException("lease stamp of slot " + slot + " has earliest " + earliest
                        + " after latest " + latest);
            }
            stamp = new LeaseStamp(creator, earliest, latest);
        }
        Entry plain = entry(slot, ballot, client, sequence, payload, coded);
        return stamp == null ? plain : new Entry(plain.slot(), plain.ballot(), plain.command(), plain.coded(), stamp);
    }

    /**
     * The fields of a plain entry: slot, ballot, client id, sequence, payload. The durable log stores
     * plain entries in exactly this form (its records say whether an entry is coded) and coded ones
     * with {@link #writeEntry}.
     */
    public static void writePlainEntry(ByteWriter w, Entry e) {
        w.i64(e.slot());
        writeBallot(w, e.ballot());
        w.i64(e.command().clientId()).i64(e.command().sequence()).bytes(e.command().payload());
    }

    /** Reads what {@link #writePlainEntry} wrote. */
    public static Entry readPlainEntry(ByteReader r) throws MalformedInputException {
        long slot = r.i64("entry slot");
        Ballot ballot = readBallot(r);
        long client = r.i64("client id");
        long sequence = r.i64("sequence");
        return entry(slot, ballot, client, sequence, r.bytes("command payload"), null);
    }

    private static Entry entry(long slot, Ballot ballot, long client, long sequence, byte[] payload, CodedValue coded)
            throws MalformedInputException {
        try {
            Command command = client == Command.NOOP_CLIENT && payload.length == 0 && sequence == 0 ? Command.NOOP
                    : new Command(client, sequence, payload);
            return new Entry(slot, ballot, command, coded);
        } catch (IllegalArgumentException e) {
            throw new MalformedInputException("invalid entry: " + e.getMessage());
        }
    }

    private static boolean flag(ByteReader r, String what) throws MalformedInputException {
        int v = r.u8(what) & 0xFF;
        if (v > 1) {
            throw new MalformedInputException(what + " is " + v + ", not 0 or 1");
        }
        return v == 1;
    }
}
