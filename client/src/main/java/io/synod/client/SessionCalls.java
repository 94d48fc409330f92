package io.synod.client;

import static io.synod.client.ClientReplies.checkKey;
import static io.synod.client.ClientReplies.decodeSession;
import static io.synod.client.ClientReplies.expectSession;
import static io.synod.client.ClientReplies.sessionFailure;

import io.synod.protocol.SessionCommand;
import io.synod.protocol.SessionResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The session-group calls behind {@link SynodClient}'s session API: sessions, the keys created under
 * them, checked deletes and key listings, each a {@link SessionCommand} sequenced through the session
 * group's log and its {@link SessionResult} turned into the SDK's result or exception.
 */
final class SessionCalls {
    private final SynodClient client;
    private final ClientEngine engine;
    private final long timeoutNanos;

    SessionCalls(SynodClient client, ClientEngine engine, long timeoutNanos) {
        this.client = client;
        this.engine = engine;
        this.timeoutNanos = timeoutNanos;
    }

    CompletableFuture<SynodSession> grant(Duration ttl) {
        long millis = ttl == null ? 0 : ttl.toMillis();
        if (millis < 1 || millis > SessionCommand.MAX_TTL_MILLIS) {
            return CompletableFuture.failedFuture(new BadRequestException("session ttl must be 1.."
                    + SessionCommand.MAX_TTL_MILLIS + " ms, got " + ttl));
        }
        long sent = System.nanoTime();
        return session(new SessionCommand.Grant(millis), reply -> {
            SessionResult.Granted g = expectSession(reply, SessionResult.Granted.class);
            SynodSession session = new SynodSession(client, g.sessionId(), g.ttlMillis(), sent);
            session.start();
            return session;
        });
    }

    CompletableFuture<Boolean> keepAlive(long id, long timeoutNanos) {
        SessionCommand command = new SessionCommand.KeepAlive(id);
        return engine.submitSession("keep-alive of session " + id, command.encode(), false, timeoutNanos)
                .thenApply(reply -> !(decodeSession(reply) instanceof SessionResult.NoSession));
    }

    CompletableFuture<Boolean> revoke(long id) {
        return session(new SessionCommand.Revoke(id), reply -> expectSession(reply, SessionResult.Applied.class).applied());
    }

    CompletableFuture<CreateResult> create(String key, byte[] value, SynodSession session, boolean sequential) {
        Objects.requireNonNull(value, "value");
        long owner = session == null ? 0 : session.id();
        return session(() -> new SessionCommand.Create(checkKey(key), value.clone(), owner, sequential), reply -> {
            SessionResult r = decodeSession(reply);
            if (r instanceof SessionResult.Created c) {
                return new CreateResult(true, c.key(), c.token(), owner, reply.slot());
            } else if (r instanceof SessionResult.Exists e) {
                return new CreateResult(false, e.key(), e.token(), e.ownerSession(), reply.slot());
            }
            throw sessionFailure(reply, r);
        });
    }

    CompletableFuture<DeleteResult> deleteIf(String key, long token) {
        if (token < -1) {
            return CompletableFuture.failedFuture(new BadRequestException("token must be >= -1, got " + token));
        }
        return session(() -> new SessionCommand.DeleteIf(checkKey(key), token),
                reply -> new DeleteResult(expectSession(reply, SessionResult.Applied.class).applied(), reply.slot()));
    }

    CompletableFuture<KeyEntry> getEntry(String key) {
        return session(() -> new SessionCommand.GetEntry(checkKey(key)), reply -> {
            SessionResult.Entry e = expectSession(reply, SessionResult.Entry.class);
            return new KeyEntry(key, e.value(), e.token(), e.ownerSession(), reply.slot());
        });
    }

    CompletableFuture<KeyListing> listKeys(String prefix, int limit) {
        Objects.requireNonNull(prefix, "prefix");
        return session(() -> new SessionCommand.ListPrefix(prefix, limit), reply -> {
            SessionResult.Listing l = expectSession(reply, SessionResult.Listing.class);
            List<KeyListing.Listed> keys = new ArrayList<>(l.keys().size());
            for (SessionResult.Listed k : l.keys()) {
                keys.add(new KeyListing.Listed(k.key(), k.token(), k.ownerSession()));
            }
            return new KeyListing(keys, l.more(), reply.slot());
        });
    }

    private <T> CompletableFuture<T> session(SessionCommand command, Function<ClientEngine.Reply, T> decode) {
        return session(() -> command, decode);
    }

    private <T> CompletableFuture<T> session(Supplier<SessionCommand> command,
            Function<ClientEngine.Reply, T> decode) {
        SessionCommand c;
        byte[] payload;
        try {
            c = command.get();
            payload = c.encode();
        } catch (SynodException e) {
            return CompletableFuture.failedFuture(e);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new BadRequestException(e.getMessage()));
        }
        String what = c.getClass().getSimpleName().toLowerCase(Locale.ROOT);
        return engine.submitSession(what, payload, c.isReadOnly(), timeoutNanos).thenApply(decode);
    }
}
