package io.synod.client;

import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.protocol.SessionOwnership;
import io.synod.protocol.SessionResult;
import java.nio.charset.StandardCharsets;

/** Decoding of servers' replies into results or the SDK's exceptions, and the client-side key check. */
final class ClientReplies {
    private ClientReplies() {}

    static SessionResult decodeSession(ClientEngine.Reply reply) {
        try {
            return SessionResult.decode(reply.result());
        } catch (IllegalArgumentException e) {
            throw new SynodException("server " + reply.node() + " sent an undecodable session result: " + e.getMessage());
        }
    }

    static <T extends SessionResult> T expectSession(ClientEngine.Reply reply, Class<T> type) {
        SessionResult result = decodeSession(reply);
        if (!type.isInstance(result)) {
            throw sessionFailure(reply, result);
        }
        return type.cast(result);
    }

    static SynodException sessionFailure(ClientEngine.Reply reply, SessionResult result) {
        if (result instanceof SessionResult.NoSession n) {
            return new SessionExpiredException(n.sessionId(), "session " + n.sessionId() + " has ended");
        } else if (result instanceof SessionResult.Refused r) {
            return r.message().startsWith(SessionOwnership.DENIED)
                    ? new SynodPermissionException("owner", "", r.message()) : new BadRequestException(r.message());
        }
        return new SynodException("server " + reply.node() + " answered with " + result.getClass().getSimpleName());
    }

    static <T extends KvResult> T expect(ClientEngine.Reply reply, Class<T> type) {
        KvResult result;
        try {
            result = KvResult.decode(reply.result());
        } catch (IllegalArgumentException e) {
            throw new SynodException("server " + reply.node() + " sent an undecodable result: " + e.getMessage());
        }
        if (result instanceof KvResult.Error error) {
            throw new BadRequestException(error.message());
        }
        if (!type.isInstance(result)) {
            throw new SynodException("server " + reply.node() + " answered with " + result.getClass().getSimpleName()
                    + ", expected " + type.getSimpleName());
        }
        return type.cast(result);
    }

    /**
     * The error a response ends its command with at once, or null when another server may still answer it: a
     * permission denial, a rejected command (too large, malformed), or a stale sequence number — a later command of
     * {@code lane} was applied, impossible while the lane runs one command at a time unless the replicas evicted the
     * lane's session, so this one's fate cannot be known and the lane takes a new client id.
     */
    static SynodException finalRefusal(ClientFrame.Response r, ClientReply.Status status, Lane lane) {
        if (r.status() == ClientFrame.STATUS_PERMISSION_DENIED) {
            return SynodPermissionException.fromResponse(r.result());
        }
        if (status == ClientReply.Status.REJECTED) {
            String message = new String(r.result(), StandardCharsets.UTF_8);
            return message.contains("exceeds the limit") ? new ValueTooLargeException(message)
                    : new BadRequestException(message);
        }
        if (status == ClientReply.Status.STALE_SEQUENCE) {
            lane.clientId = Lane.newClientId();
            return new OutcomeUnknownException("the servers no longer know the outcome of this write");
        }
        return null;
    }

    static String checkKey(String key) {
        if (key == null) {
            throw new InvalidKeyException("key must not be null");
        }
        int bytes = key.getBytes(StandardCharsets.UTF_8).length;
        if (bytes == 0 || bytes > KvCommand.MAX_KEY_BYTES) {
            throw new InvalidKeyException("key must be 1.." + KvCommand.MAX_KEY_BYTES + " UTF-8 bytes, got " + bytes);
        }
        return key;
    }
}
