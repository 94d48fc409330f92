package io.synod.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The byte format of {@link ClientFrame}s (big-endian), shared by the server and the client SDK. A
 * frame body is {@code [version u8 = 1][type u8][fields]}, the same envelope as the server's peer
 * frames (which use types 1, 2 and 14-16, at their own version); the {@code [length u32]} prefix around a body belongs to the
 * transport. Decoding checks every length and count against the bytes present before allocating and
 * fails with {@link IllegalArgumentException} naming the field.
 *
 * <p>A {@code COMMAND} ends with {@code u8 flags} and a {@code RESPONSE} with {@code u8 served}
 * (leases: {@link ClientFrame#FLAG_THROUGH_LOG}, {@link ClientFrame#SERVED_LEASE}; forwarding:
 * {@link ClientFrame#FLAG_FORWARD}).
 */
public final class ClientFrameCodec {
    public static final int VERSION = 1;

    public static final int COMMAND = 3;
    public static final int RESPONSE = 4;
    public static final int STATUS_QUERY = 5;
    public static final int STATUS_REPORT = 6;
    public static final int STALE_READ = 7;
    public static final int SHARD_MAP_QUERY = 8;
    public static final int SHARD_MAP_REPORT = 9;
    /** Types 10 and 11 are the server's peer frames (snapshot shards). */
    public static final int WATCH_POLL = 12;
    /** An admin coding change; a server older than it refuses the frame type and closes the connection. */
    public static final int CODING_CHANGE = 13;
    /** An admin membership request (types 14 and 15 are the server's forwarding frames); older servers refuse it. */
    public static final int MEMBERSHIP_REQUEST = 16;
    /** Asks for the placement; older servers refuse it (the SDK asks on a connection of its own). */
    public static final int PLACEMENT_QUERY = 17;
    public static final int PLACEMENT_REPORT = 18;

    /** Smallest encoding of one group's status: the fixed fields, the coding (4 i32) and a lease name of 1 byte. */
    private static final int GROUP_STATUS_BYTES = 4 + 4 + 8 + 4 + 8 + 8 + 8 + 4 + 4 * 4 + 1 + 1;
    private static final int MAX_GROUPS = 1 << 16;

    private ClientFrameCodec() {}

    /** Whether a body of frame type {@code type} is a client frame this codec reads. */
    public static boolean isClientFrame(int type) {
        return (type >= COMMAND && type <= SHARD_MAP_REPORT) || type == WATCH_POLL || type == CODING_CHANGE
                || type == MEMBERSHIP_REQUEST || type == PLACEMENT_QUERY || type == PLACEMENT_REPORT;
    }

    public static byte[] encode(ClientFrame frame) {
        ByteBuffer out;
        if (frame instanceof ClientFrame.Command c) {
            out = start(COMMAND, 8 + 8 + 8 + 4 + c.payload().length + 1).putLong(c.requestId()).putLong(c.clientId())
                    .putLong(c.sequence());
            bytes(out, c.payload());
            out.put((byte) c.flags());
        } else if (frame instanceof ClientFrame.Response r) {
            out = start(RESPONSE, 8 + 4 + 4 + 8 + 4 + 4 + r.result().length + 1).putLong(r.requestId())
                    .putInt(r.group()).putInt(r.status()).putLong(r.slot()).putInt(r.leaderHint());
            bytes(out, r.result());
            out.put((byte) r.served());
        } else if (frame instanceof ClientFrame.StatusQuery q) {
            out = start(STATUS_QUERY, 8).putLong(q.requestId());
        } else if (frame instanceof ClientFrame.StatusReport s) {
            int size = 8 + 4 + 4;
            for (ClientFrame.GroupStatus g : s.groups()) {
                size += GROUP_STATUS_BYTES - 1 + g.lease().getBytes(StandardCharsets.UTF_8).length;
            }
            out = start(STATUS_REPORT, size).putLong(s.requestId()).putInt(s.nodeId()).putInt(s.groups().size());
            for (ClientFrame.GroupStatus g : s.groups()) {
                out.putInt(g.group()).putInt(g.role()).putLong(g.promisedEpoch()).putInt(g.leaderHint())
                        .putLong(g.commitSlot()).putLong(g.appliedSlot()).putLong(g.snapshotSlot()).putInt(g.state());
                ClientFrame.CodingStatus c = g.coding();
                out.putInt(c.totalShards()).putInt(c.failures()).putInt(c.dataShards()).putInt(c.thresholdBytes());
                byte[] lease = g.lease().getBytes(StandardCharsets.UTF_8);
                out.put((byte) lease.length).put(lease);
            }
        } else if (frame instanceof ClientFrame.StaleRead r) {
            out = start(STALE_READ, 8 + 4 + r.payload().length).putLong(r.requestId());
            bytes(out, r.payload());
        } else if (frame instanceof ClientFrame.ShardMapQuery q) {
            out = start(SHARD_MAP_QUERY, 8).putLong(q.requestId());
        } else if (frame instanceof ClientFrame.WatchPoll w) {
            out = start(WATCH_POLL, 8 + 4 + w.query().length).putLong(w.requestId());
            bytes(out, w.query());
        } else if (frame instanceof ClientFrame.CodingChange c) {
            out = start(CODING_CHANGE, 8 + 4 * 4).putLong(c.requestId()).putInt(c.group()).putInt(c.failures())
                    .putInt(c.dataShards()).putInt(c.thresholdBytes());
        } else if (frame instanceof ClientFrame.MembershipRequest m) {
            out = start(MEMBERSHIP_REQUEST, 8 + 3 * 4 + optionalByte(m.flags())).putLong(m.requestId())
                    .putInt(m.group()).putInt(m.op()).putInt(m.replica());
            putOptionalByte(out, m.flags());
        } else if (frame instanceof ClientFrame.PlacementQuery q) {
            out = start(PLACEMENT_QUERY, 8 + optionalByte(q.features())).putLong(q.requestId());
            putOptionalByte(out, q.features());
        } else if (frame instanceof ClientFrame.PlacementReport p) {
            out = start(PLACEMENT_REPORT, 8 + 8 + 4 + 8 + 4 + 8 * p.hosts().size() + optionalByte(p.features()))
                    .putLong(p.requestId()).putLong(p.version()).putInt(p.nodes()).putLong(p.removed())
                    .putInt(p.hosts().size());
            p.hosts().forEach(out::putLong);
            putOptionalByte(out, p.features());
        } else {
            ClientFrame.ShardMapReport m = (ClientFrame.ShardMapReport) frame;
            out = start(SHARD_MAP_REPORT, 8 + 4 + m.shardMap().length).putLong(m.requestId());
            bytes(out, m.shardMap());
        }
        return out.array();
    }

    /**
     * The bytes of an optional trailing u8 (a request's flags, a placement query's or report's features): none when 0,
     * so the frame reads as before the byte existed.
     */
    private static int optionalByte(int value) {
        if (value < 0 || value > 0xFF) {
            throw new IllegalArgumentException("flags or features " + value + " do not fit a byte");
        }
        return value == 0 ? 0 : 1;
    }

    private static void putOptionalByte(ByteBuffer out, int value) {
        if (value != 0) {
            out.put((byte) value);
        }
    }

    /**
     * The optional trailing u8 of a frame (0 if the frame ends here). A byte of 0 is refused: the encoder leaves it out,
     * so each frame has one encoding.
     */
    private static int optionalByte(ByteBuffer in, String what) {
        if (in.remaining() != 1) {
            return 0;
        }
        int value = in.get() & 0xFF;
        if (value == 0) {
            throw new IllegalArgumentException(what + " byte is 0: it is sent only when not 0");
        }
        return value;
    }

    private static ByteBuffer start(int type, int fieldBytes) {
        return ByteBuffer.allocate(2 + fieldBytes).put((byte) VERSION).put((byte) type);
    }

    private static void bytes(ByteBuffer out, byte[] b) {
        out.putInt(b.length).put(b);
    }

    /** Decodes a whole frame body; throws {@link IllegalArgumentException} naming what is wrong. */
    public static ClientFrame decode(byte[] body) {
        return decode(ByteBuffer.wrap(body));
    }

    /**
     * Decodes the whole of {@code in} (position to limit, big-endian) as one frame body. The transport passes a view
     * of its receive buffer, so a value is copied once, into the frame's field, not first into a body array.
     */
    public static ClientFrame decode(ByteBuffer in) {
        need(in, 2, "frame header");
        int version = in.get() & 0xFF;
        if (version != VERSION) {
            throw new IllegalArgumentException("frame version " + version + " is not supported (this build speaks "
                    + VERSION + ")");
        }
        int type = in.get() & 0xFF;
        ClientFrame frame = switch (type) {
            case COMMAND -> new ClientFrame.Command(i64(in, "request id"), i64(in, "client id"), i64(in, "sequence"),
                    bytes(in, "command payload"), flags(in));
            case RESPONSE -> new ClientFrame.Response(i64(in, "request id"), i32(in, "group"), i32(in, "status"),
                    i64(in, "slot"), i32(in, "leader hint"), bytes(in, "result"),
                    u8(in, "served", ClientFrame.SERVED_LOCAL));
            case STATUS_QUERY -> new ClientFrame.StatusQuery(i64(in, "request id"));
            case STATUS_REPORT -> {
                long id = i64(in, "request id");
                int node = i32(in, "node id");
                int n = i32(in, "group status count");
                if (n < 0 || n > MAX_GROUPS || (long) n * GROUP_STATUS_BYTES > in.remaining()) {
                    throw new IllegalArgumentException("group status count " + n + " cannot fit in the "
                            + in.remaining() + " bytes left");
                }
                List<ClientFrame.GroupStatus> groups = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    groups.add(groupStatus(in));
                }
                yield new ClientFrame.StatusReport(id, node, groups);
            }
            case STALE_READ -> new ClientFrame.StaleRead(i64(in, "request id"), bytes(in, "read payload"));
            case SHARD_MAP_QUERY -> new ClientFrame.ShardMapQuery(i64(in, "request id"));
            case SHARD_MAP_REPORT -> new ClientFrame.ShardMapReport(i64(in, "request id"), bytes(in, "shard map"));
            case WATCH_POLL -> new ClientFrame.WatchPoll(i64(in, "request id"), bytes(in, "watch query"));
            case CODING_CHANGE -> new ClientFrame.CodingChange(i64(in, "request id"), i32(in, "group"),
                    i32(in, "failures"), i32(in, "data shards"), i32(in, "threshold bytes"));
            case MEMBERSHIP_REQUEST -> membershipRequest(in);
            case PLACEMENT_QUERY -> new ClientFrame.PlacementQuery(i64(in, "request id"), optionalByte(in, "placement query features"));
            case PLACEMENT_REPORT -> placementReport(in);
            default -> throw new IllegalArgumentException("unknown client frame type " + type);
        };
        if (in.hasRemaining()) {
            throw new IllegalArgumentException("frame has " + in.remaining() + " trailing bytes");
        }
        return frame;
    }

    private static ClientFrame.MembershipRequest membershipRequest(ByteBuffer in) {
        ClientFrame.MembershipRequest m = new ClientFrame.MembershipRequest(i64(in, "request id"), i32(in, "group"),
                i32(in, "op"), i32(in, "replica"), 0);
        int flags = optionalByte(in, "membership request flags");
        if ((flags & ~ClientFrame.MEMBERSHIP_FLAGS) != 0) {
            throw new IllegalArgumentException("membership request flags 0x" + Integer.toHexString(flags) + " are "
                    + "unknown (this build knows 0x" + Integer.toHexString(ClientFrame.MEMBERSHIP_FLAGS) + ")");
        }
        return flags == 0 ? m : new ClientFrame.MembershipRequest(m.requestId(), m.group(), m.op(), m.replica(), flags);
    }

    private static ClientFrame.PlacementReport placementReport(ByteBuffer in) {
        long id = i64(in, "request id");
        long version = i64(in, "placement version");
        int nodes = i32(in, "node count");
        if (nodes < 0 || nodes > Long.SIZE) {
            throw new IllegalArgumentException("placement node count " + nodes + " is not 0.." + Long.SIZE);
        }
        long removed = i64(in, "removed nodes");
        int n = i32(in, "placement group count");
        if (n < 0 || n > MAX_GROUPS || (long) n * Long.BYTES > in.remaining()) {
            throw new IllegalArgumentException("placement group count " + n + " cannot fit in the " + in.remaining()
                    + " bytes left");
        }
        List<Long> hosts = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            hosts.add(in.getLong());
        }
        return new ClientFrame.PlacementReport(id, version, nodes, removed, hosts,
                optionalByte(in, "placement report features"));
    }

    /** One group's status of a STATUS_REPORT (the count was checked against the bytes left). */
    private static ClientFrame.GroupStatus groupStatus(ByteBuffer in) {
        int group = in.getInt();
        int role = in.getInt();
        long epoch = in.getLong();
        int leader = in.getInt();
        long commit = in.getLong();
        long applied = in.getLong();
        long snapshot = in.getLong();
        int state = in.getInt();
        ClientFrame.CodingStatus coding = new ClientFrame.CodingStatus(i32(in, "coding N"), i32(in, "coding F"),
                i32(in, "coding X"), i32(in, "coding threshold"));
        int leaseLength = u8(in, "lease mode length", ClientFrame.GroupStatus.MAX_LEASE_NAME);
        need(in, leaseLength, "lease mode");
        byte[] lease = new byte[leaseLength];
        in.get(lease);
        return new ClientFrame.GroupStatus(group, role, epoch, leader, commit, applied, snapshot, state,
                new String(lease, StandardCharsets.UTF_8), coding);
    }

    private static void need(ByteBuffer in, int bytes, String what) {
        if (in.remaining() < bytes) {
            throw new IllegalArgumentException(what + " needs " + bytes + " bytes, only " + in.remaining() + " left");
        }
    }

    /** One byte, at most {@code max}. */
    private static int flags(ByteBuffer in) {
        need(in, 1, "command flags");
        int v = in.get() & 0xFF;
        if ((v & ~ClientFrame.COMMAND_FLAGS) != 0) {
            throw new IllegalArgumentException("command flags " + v + " have bits other than " + ClientFrame.COMMAND_FLAGS);
        }
        return v;
    }

    private static int u8(ByteBuffer in, String what, int max) {
        need(in, 1, what);
        int v = in.get() & 0xFF;
        if (v > max) {
            throw new IllegalArgumentException(what + " " + v + " is not 0.." + max);
        }
        return v;
    }

    private static int i32(ByteBuffer in, String what) {
        need(in, 4, what);
        return in.getInt();
    }

    private static long i64(ByteBuffer in, String what) {
        need(in, 8, what);
        return in.getLong();
    }

    private static byte[] bytes(ByteBuffer in, String what) {
        int length = i32(in, what + " length");
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException(what + " length " + length + " exceeds the " + in.remaining()
                    + " bytes left");
        }
        byte[] out = new byte[length];
        in.get(out);
        return out;
    }
}
