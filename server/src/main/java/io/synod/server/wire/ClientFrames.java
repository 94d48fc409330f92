package io.synod.server.wire;

import io.synod.protocol.ClientFrame;
import java.util.ArrayList;
import java.util.List;

/** Converts between the server's client {@link WireFrame}s and core's {@link ClientFrame}s (which own the bytes). */
final class ClientFrames {
    private ClientFrames() {}

    /** The core frame for a client {@link WireFrame}, or null if {@code frame} is a peer frame. */
    static ClientFrame toClient(WireFrame frame) {
        if (frame instanceof WireFrame.ClientCommand c) {
            return new ClientFrame.Command(c.requestId(), c.clientId(), c.sequence(), c.payload(), c.flags());
        } else if (frame instanceof WireFrame.ClientResponse r) {
            return new ClientFrame.Response(r.requestId(), r.group(), r.status(), r.slot(), r.leaderHint(), r.result(),
                    r.served());
        } else if (frame instanceof WireFrame.StatusQuery q) {
            return new ClientFrame.StatusQuery(q.requestId());
        } else if (frame instanceof WireFrame.StatusReport s) {
            List<ClientFrame.GroupStatus> groups = new ArrayList<>(s.groups().size());
            for (WireFrame.GroupStatus g : s.groups()) {
                groups.add(new ClientFrame.GroupStatus(g.group(), g.role(), g.promisedEpoch(), g.leaderHint(),
                        g.commitSlot(), g.appliedSlot(), g.snapshotSlot(), g.state()));
            }
            return new ClientFrame.StatusReport(s.requestId(), s.nodeId(), groups);
        } else if (frame instanceof WireFrame.StaleRead r) {
            return new ClientFrame.StaleRead(r.requestId(), r.payload());
        } else if (frame instanceof WireFrame.ShardMapQuery q) {
            return new ClientFrame.ShardMapQuery(q.requestId());
        } else if (frame instanceof WireFrame.ShardMapReport m) {
            return new ClientFrame.ShardMapReport(m.requestId(), m.shardMap());
        } else if (frame instanceof WireFrame.WatchPoll w) {
            return new ClientFrame.WatchPoll(w.requestId(), w.query());
        } else if (frame instanceof WireFrame.CodingChange c) {
            return new ClientFrame.CodingChange(c.requestId(), c.group(), c.failures(), c.dataShards(), c.thresholdBytes());
        }
        return null;
    }

    static WireFrame fromClient(ClientFrame frame) {
        if (frame instanceof ClientFrame.Command c) {
            return new WireFrame.ClientCommand(c.requestId(), c.clientId(), c.sequence(), c.payload(), c.flags());
        } else if (frame instanceof ClientFrame.Response r) {
            return new WireFrame.ClientResponse(r.requestId(), r.group(), r.status(), r.slot(), r.leaderHint(), r.result(),
                    r.served());
        } else if (frame instanceof ClientFrame.StatusQuery q) {
            return new WireFrame.StatusQuery(q.requestId());
        } else if (frame instanceof ClientFrame.StatusReport s) {
            List<WireFrame.GroupStatus> groups = new ArrayList<>(s.groups().size());
            for (ClientFrame.GroupStatus g : s.groups()) {
                groups.add(new WireFrame.GroupStatus(g.group(), g.role(), g.promisedEpoch(), g.leaderHint(),
                        g.commitSlot(), g.appliedSlot(), g.snapshotSlot(), g.state()));
            }
            return new WireFrame.StatusReport(s.requestId(), s.nodeId(), groups);
        } else if (frame instanceof ClientFrame.StaleRead r) {
            return new WireFrame.StaleRead(r.requestId(), r.payload());
        } else if (frame instanceof ClientFrame.ShardMapQuery q) {
            return new WireFrame.ShardMapQuery(q.requestId());
        } else if (frame instanceof ClientFrame.WatchPoll w) {
            return new WireFrame.WatchPoll(w.requestId(), w.query());
        } else if (frame instanceof ClientFrame.CodingChange c) {
            return new WireFrame.CodingChange(c.requestId(), c.group(), c.failures(), c.dataShards(), c.thresholdBytes());
        }
        ClientFrame.ShardMapReport m = (ClientFrame.ShardMapReport) frame;
        return new WireFrame.ShardMapReport(m.requestId(), m.shardMap());
    }
}
