package io.synod.server.auth;

import io.synod.protocol.ClientFrame;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.core.kv.ReservedKeys;
import io.synod.protocol.ClientReply;
import io.synod.server.config.AuthSettings;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's copy of the authorization table: every {@code auth.refresh.ms} it scans the table's keys in its
 * own replica of the group that owns them (a local read at that replica's applied slot, the STALE path), and swaps
 * in the parsed table once the whole range is read. So a change takes effect on a node once its replica applied it
 * and the next refresh ran: the node's replication lag plus at most one period (docs/security.md). Until the first
 * complete read (a node that just started, or one that hosts no replica of that group) the table is empty: only the
 * bootstrap administrators and nodes may do anything, so a node never grants more than the log says.
 */
public final class AuthService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AuthService.class);
    /** The first key after the table's range ('/' + 1). */
    static final String AUTH_END = ReservedKeys.PREFIX + "auth0";
    private static final int STUCK_PERIODS = 50;

    private final BiConsumer<ClientFrame.StaleRead, Consumer<ClientFrame.Response>> localRead;
    private final ClientAccess access;
    private final ScheduledExecutorService timer;
    private final AtomicBoolean reading = new AtomicBoolean();
    /** When the read in progress began; a read unanswered for {@link #STUCK_PERIODS} periods is given up. */
    private volatile long readStartNanos;
    private final long stuckNanos;
    /** Which read is current: the pages of a read given up must not swap an older table in later. */
    private final AtomicLong generation = new AtomicLong();
    private final AtomicLong nextRequest = new AtomicLong(1);
    private final AtomicLong refreshes = new AtomicLong();
    private volatile AuthTable table = AuthTable.EMPTY;

    /** {@code localRead}: a STALE read of this node's replica of the key's group. */
    public AuthService(AuthSettings settings, BiConsumer<ClientFrame.StaleRead, Consumer<ClientFrame.Response>> localRead) {
        this.localRead = localRead;
        this.stuckNanos = TimeUnit.MILLISECONDS.toNanos((long) settings.refreshMillis() * STUCK_PERIODS);
        this.access = settings.enabled() ? new ClientAccess(true, settings.adminUsers(), () -> table) : ClientAccess.ALLOW_ALL;
        if (settings.enabled()) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "synod-auth-refresh");
                t.setDaemon(true);
                return t;
            });
            timer.scheduleWithFixedDelay(this::refresh, 0, settings.refreshMillis(), TimeUnit.MILLISECONDS);
        } else {
            timer = null;
        }
    }

    public ClientAccess access() {
        return access;
    }

    /** The table this node enforces now. */
    public AuthTable table() {
        return table;
    }

    /** Complete reads of the table so far (tests wait for one after a change). */
    public long refreshes() {
        return refreshes.get();
    }

    private void refresh() {
        if (reading.get() && System.nanoTime() - readStartNanos > stuckNanos) {
            reading.set(false); // A replica that stopped (a failed group loop) never answers: ask again.
        }
        if (reading.compareAndSet(false, true)) {
            readStartNanos = System.nanoTime();
            readFrom(generation.incrementAndGet(), ReservedKeys.AUTH_PREFIX, new TreeMap<>());
        }
    }

    /** Reads one page of the range from {@code start}; the last page swaps the table in. */
    private void readFrom(long read, String start, TreeMap<String, byte[]> found) {
        byte[] scan = new KvCommand.Scan(start, AUTH_END, KvCommand.MAX_SCAN_LIMIT).encode();
        try {
            localRead.accept(new ClientFrame.StaleRead(nextRequest.getAndIncrement(), scan),
                    response -> onPage(read, response, found));
        } catch (RuntimeException e) {
            reading.set(false);
            LOG.debug("authorization table read failed: {}", e.toString());
        }
    }

    private void onPage(long read, ClientFrame.Response response, TreeMap<String, byte[]> found) {
        if (read != generation.get()) {
            return; // A read given up as stuck answered after all.
        }
        try {
            if (response.status() != ClientReply.Status.OK.ordinal()
                    || !(KvResult.decode(response.result()) instanceof KvResult.Entries page)) {
                reading.set(false); // No replica here yet, or not serving: keep the copy we have.
                return;
            }
            for (KvResult.Entry e : page.entries()) {
                found.put(e.key(), e.value());
            }
            if (page.more() && !page.entries().isEmpty()) {
                readFrom(read, page.entries().get(page.entries().size() - 1).key() + "\u0000", found);
                return;
            }
            table = AuthTable.parse(Map.copyOf(found));
            refreshes.incrementAndGet();
            reading.set(false);
        } catch (RuntimeException e) {
            reading.set(false);
            LOG.warn("authorization table read failed: {}", e.toString());
        }
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
