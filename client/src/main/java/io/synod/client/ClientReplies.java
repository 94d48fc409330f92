package io.synod.client;

import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
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
            return new BadRequestException(r.message());
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
