package io.synod.recipes.lock;

import io.synod.client.BadRequestException;
import io.synod.client.SessionExpiredException;
import io.synod.client.UnavailableException;
import io.synod.recipes.lock.LockBackend.Reply;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.zookeeper.KeeperException.Code;

/** How {@link SynodLockBackend} turns the SDK's failures into the {@link LockBackend}'s replies and exceptions. */
final class SynodReplies {
    private SynodReplies() {}

    /** A failed SDK call as a reply: a session that ended, an unknown outcome (connection loss), or a refusal. */
    static Reply failure(Throwable error, long sid) {
        Throwable cause = unwrap(error);
        if (cause instanceof SessionExpiredException) {
            return Reply.of(Code.SESSIONEXPIRED, sid);
        }
        if (cause instanceof BadRequestException) {
            return Reply.of(Code.BADARGUMENTS, sid);
        }
        if (cause instanceof UnavailableException u && u.getMessage() != null && u.getMessage().contains("closed")) {
            throw new CompletionException(new IllegalStateException("the Synod client is closed", cause));
        }
        return Reply.of(Code.CONNECTIONLOSS, sid); // timeout, unknown outcome, no server reachable
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    static Reply await(CompletableFuture<Reply> f) throws Exception {
        try {
            return f.get();
        } catch (ExecutionException e) {
            Throwable cause = unwrap(e);
            if (cause instanceof Exception ex) {
                throw ex;
            }
            throw e;
        }
    }
}
