package io.synod.client;

import io.synod.coordination.ShardMap;
import io.synod.protocol.ClientFrame;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Discovery from a list of server client addresses: each server's status report names its node id
 * (and the leaders it knows); the shard map comes from a server (ShardMapQuery), and is asked for
 * again when a reply shows the servers route a key to another group.
 */
final class StaticDiscovery implements Discovery {
    private static final long REFRESH_INTERVAL_NANOS = 1_000_000_000L;

    private final List<InetSocketAddress> servers;
    private final AtomicLong lastRefresh = new AtomicLong(System.nanoTime() - REFRESH_INTERVAL_NANOS);

    StaticDiscovery(List<InetSocketAddress> servers) {
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("no server addresses given");
        }
        this.servers = List.copyOf(servers);
    }

    @Override
    public void start(ClientEngine engine) {
        AtomicInteger unanswered = new AtomicInteger(servers.size());
        for (InetSocketAddress address : servers) {
            engine.query(address, ClientFrame.StatusQuery::new, frame -> {
                if (frame instanceof ClientFrame.StatusReport report) {
                    engine.addNode(report.nodeId(), address);
                    for (ClientFrame.GroupStatus g : report.groups()) {
                        if (g.role() == 2) {
                            engine.noteLeader(g.group(), report.nodeId());
                        }
                    }
                    askShardMap(engine, address);
                } else if (unanswered.decrementAndGet() == 0) {
                    engine.failStart(new UnavailableException("no Synod server answered at " + describe()));
                }
            });
        }
    }

    private void askShardMap(ClientEngine engine, InetSocketAddress address) {
        engine.query(address, ClientFrame.ShardMapQuery::new, frame -> {
            if (frame instanceof ClientFrame.ShardMapReport report && report.shardMap().length > 0) {
                try {
                    engine.updateShardMap(ShardMap.decode(report.shardMap()));
                } catch (RuntimeException e) {
                    engine.failStart(new UnavailableException("server " + address + " sent a bad shard map: "
                            + e.getMessage()));
                }
            }
        });
    }

    @Override
    public void refreshShardMap(ClientEngine engine) {
        long now = System.nanoTime();
        long last = lastRefresh.get();
        if (now - last >= REFRESH_INTERVAL_NANOS && lastRefresh.compareAndSet(last, now)) {
            for (InetSocketAddress address : servers) {
                askShardMap(engine, address);
            }
        }
    }

    @Override
    public String describe() {
        StringBuilder b = new StringBuilder();
        for (InetSocketAddress a : servers) {
            b.append(b.length() == 0 ? "" : ",").append(a.getHostString()).append(':').append(a.getPort());
        }
        return b.toString();
    }

    @Override
    public void close() {}

    /** Parses {@code host:port[,host:port...]} (ports 1..65535); a bad entry is named in the error. */
    static List<InetSocketAddress> parseHostPorts(String hostPorts) {
        if (hostPorts == null || hostPorts.isBlank()) {
            throw new IllegalArgumentException("no server addresses given");
        }
        List<InetSocketAddress> out = new ArrayList<>();
        for (String part : hostPorts.split(",", -1)) {
            String p = part.trim();
            int colon = p.lastIndexOf(':');
            String port = colon < 0 ? "" : p.substring(colon + 1);
            if (colon <= 0 || port.isEmpty() || port.length() > 5 || !port.chars().allMatch(Character::isDigit)
                    || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
                throw new IllegalArgumentException("'" + p + "' is not host:port (port 1..65535)");
            }
            out.add(new InetSocketAddress(p.substring(0, colon), Integer.parseInt(port)));
        }
        return out;
    }
}
