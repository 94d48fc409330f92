package io.synod.server.auth;

import io.netty.handler.ssl.SslHandler;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.KvCommand;
import io.synod.core.kv.ReservedKeys;
import io.synod.protocol.SessionCommand;
import io.synod.protocol.SessionOwnership;
import io.synod.protocol.WatchCodec;
import io.synod.server.security.CertIdentity;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The client port's authorization: decides, for each request of a connection, whether its identity may make it,
 * against this node's applied copy of the table ({@link AuthTable}). Key reads, writes, compare-and-sets, scans,
 * watches and the session commands that name keys need {@code read} or {@code write} on a prefix holding the key
 * (or range); coding changes and the table's own keys need {@code admin}, and a status report shows ballots and
 * slots only to an administrator ({@link #visibleStatus}); opening a session needs a user defined in the table; an {@code Expire} is the replicas' own command
 * and is refused from every client. Administrators are the users holding the {@code admin} role, the users named in
 * {@code auth.admin.users} (the bootstrap: they can create the first users) and the nodes' own certificates (whoever
 * holds one can already speak for a node on the peer port).
 */
public final class ClientAccess {
    /** Authorization off: every request passes (insecure mode, or {@code auth.enabled=false}). */
    public static final ClientAccess ALLOW_ALL = new ClientAccess(false, Set.of(), () -> AuthTable.EMPTY);

    private final boolean enabled;
    private final Set<String> adminUsers;
    private final Supplier<AuthTable> table;

    public ClientAccess(boolean enabled, Set<String> adminUsers, Supplier<AuthTable> table) {
        this.enabled = enabled;
        this.adminUsers = Set.copyOf(adminUsers);
        this.table = table;
    }

    public boolean enabled() {
        return enabled;
    }

    /** What {@code who} may do now. */
    public Access accessOf(CertIdentity who) {
        if (!enabled) {
            return new Access("", true, true, List.of());
        }
        AuthTable t = table.get();
        String user = who.name();
        if (CertIdentity.NODE.equals(who.role())) {
            return new Access(user, true, true, List.of());
        }
        if (!CertIdentity.CLIENT.equals(who.role())) {
            return new Access(user, false, false, List.of()); // Not a Synod client certificate: nothing.
        }
        boolean admin = adminUsers.contains(user) || t.isAdmin(user);
        return new Access(user, admin, admin || t.hasUser(user), t.grants(user));
    }

    /** The identity a connection's client certificate names (no TLS: an identity naming none). */
    public static CertIdentity identityOf(SslHandler ssl) {
        if (ssl == null) {
            return new CertIdentity("", "", "");
        }
        try {
            return CertIdentity.of(ssl.engine().getSession().getPeerCertificates());
        } catch (SSLPeerUnverifiedException e) {
            return new CertIdentity("", "", ""); // Not reached: the port requires a client certificate.
        }
    }

    /**
     * {@code report} as {@code who} may see it: an administrator sees it whole; any other client sees which node
     * leads which group (what the SDK routes by) but no promised epoch, commit, applied or snapshot slot.
     */
    public ClientFrame.StatusReport visibleStatus(CertIdentity who, ClientFrame.StatusReport report) {
        if (!enabled || accessOf(who).admin()) {
            return report;
        }
        List<ClientFrame.GroupStatus> groups = new ArrayList<>();
        for (ClientFrame.GroupStatus g : report.groups()) {
            groups.add(new ClientFrame.GroupStatus(g.group(), g.role(), 0, g.leaderHint(), 0, 0, 0, g.state(), g.lease(),
                    g.coding()));
        }
        return new ClientFrame.StatusReport(report.requestId(), report.nodeId(), groups);
    }

    /**
     * {@code frame} with its session command stamped ({@link SessionOwnership}): a grant with the user as owner, a
     * keep-alive or revoke with the user, or {@link SessionOwnership#ANY} for an administrator (and for everyone when
     * authorization is off). Whatever a client put there itself is replaced. Other frames are returned as they are.
     */
    public ClientFrame stamped(CertIdentity who, ClientFrame frame) {
        if (!(frame instanceof ClientFrame.Command c) || !SessionCommand.isSessionCommand(c.payload())) {
            return frame;
        }
        SessionCommand command;
        try {
            command = SessionCommand.decode(c.payload());
        } catch (IllegalArgumentException e) {
            return frame; // Malformed: the group refuses it with its reason.
        }
        Access access = accessOf(who);
        String principal = access.admin() ? SessionOwnership.ANY : access.user();
        SessionCommand stamped;
        if (command instanceof SessionCommand.Grant g) {
            stamped = new SessionCommand.Grant(g.ttlMillis(), enabled ? access.user() : "");
        } else if (command instanceof SessionCommand.KeepAlive k) {
            stamped = new SessionCommand.KeepAlive(k.sessionId(), principal);
        } else if (command instanceof SessionCommand.Revoke r) {
            stamped = new SessionCommand.Revoke(r.sessionId(), principal);
        } else {
            return frame;
        }
        return new ClientFrame.Command(c.requestId(), c.clientId(), c.sequence(), stamped.encode(), c.flags());
    }

    /** The answer refusing {@code frame} from {@code who}, or null if it may be made. */
    public ClientFrame.Response refusal(CertIdentity who, ClientFrame frame) {
        Denial denial = check(who, frame);
        if (denial == null) {
            return null;
        }
        long requestId;
        if (frame instanceof ClientFrame.Command c) {
            requestId = c.requestId();
        } else if (frame instanceof ClientFrame.StaleRead r) {
            requestId = r.requestId();
        } else if (frame instanceof ClientFrame.WatchPoll w) {
            requestId = w.requestId();
        } else {
            requestId = frame.requestId(); // an admin request: a coding or membership change
        }
        return denial.response(requestId);
    }

    /** Why {@code who} may not make {@code frame}, or null if it may. */
    public Denial check(CertIdentity who, ClientFrame frame) {
        if (!enabled) {
            return null;
        }
        Access access = accessOf(who);
        if (frame instanceof ClientFrame.Command c) {
            return checkPayload(access, c.payload());
        } else if (frame instanceof ClientFrame.StaleRead r) {
            return checkPayload(access, r.payload());
        } else if (frame instanceof ClientFrame.WatchPoll w) {
            WatchCodec.Query q;
            try {
                q = WatchCodec.decodeQuery(w.query());
            } catch (IllegalArgumentException e) {
                return null; // Malformed: the session group refuses it with its reason.
            }
            boolean ok = q.prefix() ? access.allowsPrefix(q.key(), Permission.READ) : access.allowsKey(q.key(), Permission.READ);
            return ok ? null : new Denial(access.user(), "read", q.key(), q.prefix() ? "watch of the prefix" : "watch");
        } else if (frame instanceof ClientFrame.CodingChange) {
            return access.admin() ? null : new Denial(access.user(), "admin", "", "a coding change");
        } else if (frame instanceof ClientFrame.MembershipRequest) {
            return access.admin() ? null : new Denial(access.user(), "admin", "", "a membership request");
        }
        return null; // The shard map, and status (redacted for non-administrators): any client routes by them.
    }

    private static Denial checkPayload(Access access, byte[] payload) {
        try {
            if (SessionCommand.isSessionCommand(payload)) {
                return checkSession(access, SessionCommand.decode(payload));
            }
            return checkKv(access, KvCommand.decode(payload));
        } catch (IllegalArgumentException e) {
            return null; // Malformed: the group refuses it with its reason, as without authorization.
        }
    }

    private static Denial checkKv(Access access, KvCommand command) {
        if (command instanceof KvCommand.Scan scan) {
            return access.allowsRange(scan.start(), scan.end(), Permission.READ) ? null
                    : new Denial(access.user(), KeyRanges.intersects(scan.start(), scan.end(), ReservedKeys.AUTH_PREFIX)
                            ? "admin" : "read", scan.start(), "scan to '" + scan.end() + "'");
        }
        Permission needed = command.isReadOnly() ? Permission.READ : Permission.WRITE;
        return keyCheck(access, command.key(), needed, command.getClass().getSimpleName());
    }

    private static Denial checkSession(Access access, SessionCommand command) {
        if (command instanceof SessionCommand.Create c) {
            return keyCheck(access, c.key(), Permission.WRITE, "create");
        } else if (command instanceof SessionCommand.DeleteIf d) {
            return keyCheck(access, d.key(), Permission.WRITE, "delete");
        } else if (command instanceof SessionCommand.GetEntry g) {
            return keyCheck(access, g.key(), Permission.READ, "get");
        } else if (command instanceof SessionCommand.ListPrefix l) {
            return access.allowsPrefix(l.prefix(), Permission.READ) ? null
                    : new Denial(access.user(), "read", l.prefix(), "listing of the prefix");
        } else if (command instanceof SessionCommand.Expire) {
            return new Denial(access.user(), "replica", "", "expiring a session (only the replicas' own expiry path may)");
        } else if (command instanceof SessionCommand.Grant) {
            return access.known() ? null : new Denial(access.user(), "user", "", "opening a session (the user is not defined)");
        }
        return null; // Keep-alive and revoke: the session's owner is checked where the log applies them (stamped).
    }

    private static Denial keyCheck(Access access, String key, Permission needed, String what) {
        if (access.allowsKey(key, needed)) {
            return null;
        }
        return new Denial(access.user(), key.startsWith(ReservedKeys.AUTH_PREFIX) ? "admin" : needed.text(), key, what);
    }
}
