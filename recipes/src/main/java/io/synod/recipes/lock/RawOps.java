package io.synod.recipes.lock;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * Single ZooKeeper requests on one session's handle, without Curator's retries: what the RETRY and POLL
 * strategies send. A request either gets its server's answer or CONNECTIONLOSS, which is the only case whose
 * outcome is unknown; requests of one handle are executed and answered in the order they were issued. Both facts
 * are what the probing attempts reason with (an ownership read issued after an unknown create sees its effect).
 * Nodes get {@link ZooDefs.Ids#OPEN_ACL_UNSAFE}, Curator's default ACL.
 */
final class RawOps {

    private RawOps() {}

    /** One answer; {@code sessionId} is the session of the handle the request went out on. */
    record Reply(Code code, long sessionId, String name, Stat stat, byte[] data, List<String> children) {
        static Reply of(Code code, long sessionId) {
            return new Reply(code, sessionId, null, null, null, List.of());
        }
    }

    static String serverPath(CuratorFramework client, String path) {
        return ZKPaths.fixForNamespace(client.getNamespace(), path);
    }

    /** Issues one request: {@code send} gets the future to complete from its callback. */
    private interface Request {
        void send(long session, CompletableFuture<Reply> reply);
    }

    private static CompletableFuture<Reply> request(ZooKeeper handle, Request request) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        long session = handle.getSessionId();
        try {
            request.send(session, reply);
        } catch (RuntimeException e) {
            reply.complete(Reply.of(Code.CONNECTIONLOSS, session)); // a closed handle refuses locally
        }
        return reply;
    }

    static CompletableFuture<Reply> create(ZooKeeper handle, String serverPath, byte[] data, CreateMode mode) {
        return request(handle, (session, reply) -> handle.create(serverPath, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, mode,
                (rc, path, ctx, name, stat) -> reply.complete(new Reply(Code.get(rc), session, name, stat, null, List.of())), null));
    }

    static CompletableFuture<Reply> getData(ZooKeeper handle, String serverPath) {
        return request(handle, (session, reply) -> handle.getData(serverPath, false,
                (rc, path, ctx, data, stat) -> reply.complete(new Reply(Code.get(rc), session, null, stat, data, List.of())), null));
    }

    static CompletableFuture<Reply> exists(ZooKeeper handle, String serverPath) {
        return request(handle, (session, reply) -> handle.exists(serverPath, false,
                (rc, path, ctx, stat) -> reply.complete(new Reply(Code.get(rc), session, null, stat, null, List.of())), null));
    }

    static CompletableFuture<Reply> getChildren(ZooKeeper handle, String serverPath) {
        return request(handle, (session, reply) -> handle.getChildren(serverPath, false, (rc, path, ctx, children) -> reply.complete(
                new Reply(Code.get(rc), session, null, null, null, children == null ? List.of() : List.copyOf(children))), null));
    }
}
