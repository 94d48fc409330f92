package io.synod.recipes.lock;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * Deletes lock nodes, but only from inside the session that owns them.
 *
 * <p>Why not Curator's {@code delete().guaranteed()}: Curator retries an operation that failed with
 * SESSIONEXPIRED on the <em>new</em> session. For the test-and-set lock, whose node has a fixed name, such a
 * retried delete would remove the node of the <em>next</em> holder: the double-holder of CURATOR-206/604 in a new
 * form. A ZooKeeper handle, by contrast, belongs to exactly one session for its whole life, so operations sent
 * on the handle that was current when the node was ours can never touch anything after that session ended.
 * And once the session has ended, ZooKeeper deletes its ephemeral nodes itself, so "the session is gone" counts
 * as success. This class is the only place where the locks use ZooKeeper's handle directly.
 *
 * <p>Pinning to the session is not enough within a living session: a delete whose reply was lost may have
 * executed, and the fixed-name node may already be the next holder's. Retried deletes therefore check the node's
 * czxid first (see {@link #deleteOwnedNode}).
 *
 * <p>Each task retries connection loss with back-off for as long as its handle is alive, and for at most
 * twice the session timeout plus {@link #EXTRA_RETRY_NANOS} in all (by then the session has either resumed or
 * expired). The returned future completes when the node is gone or its session ended, and fails with a
 * {@link LockCoordinationException} if ZooKeeper refused the operation or the retry budget ran out.
 */
final class NodeReaper {

    private static final long FIRST_BACKOFF_NANOS = 50_000_000L;
    private static final long MAX_BACKOFF_NANOS = 1_000_000_000L;
    private static final long EXTRA_RETRY_NANOS = 10_000_000_000L;
    /** Pin to whichever session is current when the task starts (for nodes whose owner is not known). */
    private static final long CURRENT_SESSION = -1;
    /** For nodes with unique names, which need no identity check before a retried delete. */
    static final long ANY_CZXID = -1;

    private NodeReaper() {}

    /**
     * Deletes a node that this process knows to be its own, created in session {@code sessionId} with creation zxid
     * {@code czxid} ({@link #ANY_CZXID} for queue nodes, whose unique names make them unmistakable).
     *
     * <p>The first attempt deletes at once: the node is ours at that moment. A retry after connection loss first
     * reads the node, and deletes it only if it is still the one created at {@code czxid}: the lost attempt may have
     * deleted it already, and the test-and-set node's fixed name may since belong to the next holder, whose node
     * has the same name and the same data version, but not the same czxid.
     */
    static CompletableFuture<Void> deleteOwnedNode(CuratorFramework client, String lockPath, String nodePath, long sessionId, long czxid) {
        return new PinnedTask(client, lockPath, "delete " + nodePath, sessionId) {
            private boolean verifyFirst;

            @Override
            void attempt() {
                if (verifyFirst && czxid != ANY_CZXID) {
                    handle.exists(serverPath(nodePath), false, (rc, path, ctx, stat) -> {
                        Code code = Code.get(rc);
                        if (code == Code.NONODE || (code == Code.OK && (stat == null || stat.getCzxid() != czxid))) {
                            succeed(); // ours is gone; whatever is there now is someone else's
                        } else if (code == Code.OK) {
                            delete();
                        } else {
                            retryOrFail(code);
                        }
                    }, null);
                } else {
                    delete();
                }
            }

            private void delete() {
                handle.delete(serverPath(nodePath), -1, (rc, path, ctx) -> {
                    Code code = Code.get(rc);
                    if (code == Code.OK || code == Code.NONODE) {
                        succeed();
                    } else {
                        verifyFirst = true; // the delete may have happened: never repeat it blindly
                        retryOrFail(code);
                    }
                }, null);
            }
        }.start();
    }

    /**
     * Deletes every child of {@code lockPath} whose name starts with {@code prefix} (the queue nodes of one
     * acquisition attempt, found by their protected name), in the current session: used when a create may have
     * succeeded on the server without this process learning the name.
     */
    static CompletableFuture<Void> reapChildren(CuratorFramework client, String lockPath, String prefix) {
        return new PinnedTask(client, lockPath, "reap " + prefix + "* under " + lockPath, CURRENT_SESSION) {
            @Override
            void attempt() {
                handle.getChildren(serverPath(lockPath), false, (rc, path, ctx, children) -> {
                    Code code = Code.get(rc);
                    if (code == Code.NONODE) {
                        succeed();
                    } else if (code != Code.OK) {
                        retryOrFail(code);
                    } else {
                        List<String> ours = children.stream().filter(child -> child.startsWith(prefix)).toList();
                        CompletableFuture.allOf(ours.stream()
                                        .map(child -> deleteOwnedNode(client, lockPath, ZKPaths.makePath(lockPath, child), handle.getSessionId(), ANY_CZXID))
                                        .toArray(CompletableFuture[]::new))
                                .whenComplete((ignored, error) -> {
                                    if (error == null) {
                                        succeed();
                                    } else {
                                        fail(error);
                                    }
                                });
                    }
                }, null);
            }
        }.start();
    }

    /**
     * Deletes the test-and-set node if it is this attempt's (same session, same attempt id in its data): used when
     * a create may have succeeded on the server without this process learning it.
     */
    static CompletableFuture<Void> reapTasAttempt(CuratorFramework client, String lockPath, String holderPath, byte[] attemptData) {
        return new PinnedTask(client, lockPath, "reap " + holderPath, CURRENT_SESSION) {
            @Override
            void attempt() {
                handle.getData(serverPath(holderPath), false, (rc, path, ctx, data, stat) -> {
                    Code code = Code.get(rc);
                    if (code == Code.NONODE) {
                        succeed();
                    } else if (code != Code.OK) {
                        retryOrFail(code);
                    } else if (isOwnedBy(stat, handle.getSessionId()) && Arrays.equals(data, attemptData)) {
                        deleteOwnedNode(client, lockPath, holderPath, handle.getSessionId(), stat.getCzxid())
                                .whenComplete((ignored, error) -> {
                                    if (error == null) {
                                        succeed();
                                    } else {
                                        fail(error);
                                    }
                                });
                    } else {
                        succeed();
                    }
                }, null);
            }
        }.start();
    }

    static boolean isOwnedBy(Stat stat, long sessionId) {
        return sessionId != 0 && stat.getEphemeralOwner() == sessionId;
    }

    /** One operation pinned to one session's handle, retried on connection loss while that session may live. */
    private abstract static class PinnedTask {
        private final CuratorFramework client;
        private final String lockPath;
        private final String description;
        private final long sessionId;
        private final CompletableFuture<Void> outcome = new CompletableFuture<>();
        private long deadlineNanos;
        private long backoffNanos = FIRST_BACKOFF_NANOS;
        ZooKeeper handle;

        PinnedTask(CuratorFramework client, String lockPath, String description, long sessionId) {
            this.client = client;
            this.lockPath = lockPath;
            this.description = description;
            this.sessionId = sessionId;
        }

        abstract void attempt();

        final CompletableFuture<Void> start() {
            deadlineNanos = System.nanoTime() + 2L * Sessions.sessionTimeoutMillis(client) * 1_000_000L + EXTRA_RETRY_NANOS;
            pinAndAttempt();
            return outcome;
        }

        private void pinAndAttempt() {
            ZooKeeper current;
            try {
                current = Sessions.currentHandle(client);
            } catch (Exception e) {
                if (client.getState() == CuratorFrameworkState.STOPPED) {
                    succeed(); // closing a client closes its session, and the session's nodes go with it
                } else {
                    // Curator hands a queued background error to whoever asks for the handle next: transient.
                    retryLater(Code.CONNECTIONLOSS, this::pinAndAttempt);
                }
                return;
            }
            long owner = sessionId == CURRENT_SESSION ? current.getSessionId() : sessionId;
            if (owner == 0 || current.getSessionId() != owner) {
                // The owning session is no longer the client's session: ZooKeeper deletes (or has deleted) its nodes.
                succeed();
                return;
            }
            handle = current;
            runAttempt();
        }

        private void runAttempt() {
            try {
                attempt();
            } catch (RuntimeException e) {
                fail(e);
            }
        }

        final String serverPath(String path) {
            return ZKPaths.fixForNamespace(client.getNamespace(), path);
        }

        final void succeed() {
            outcome.complete(null);
        }

        final void fail(Throwable error) {
            outcome.completeExceptionally(error);
        }

        final void retryOrFail(Code code) {
            if (code == Code.SESSIONEXPIRED || !handle.getState().isAlive()) {
                succeed(); // the session ended, and its ephemeral nodes with it
                return;
            }
            boolean retryable = code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT || code == Code.SESSIONMOVED;
            if (!retryable) {
                fail(new LockCoordinationException(lockPath, description + " failed", code, KeeperException.create(code)));
                return;
            }
            retryLater(code, this::runAttempt);
        }

        private void retryLater(Code code, Runnable step) {
            if (System.nanoTime() - deadlineNanos > 0) {
                fail(new LockCoordinationException(lockPath, description + " gave up after retrying", code, KeeperException.create(code)));
                return;
            }
            LockScheduler.schedule(step, backoffNanos);
            backoffNanos = Math.min(2 * backoffNanos, MAX_BACKOFF_NANOS);
        }
    }
}
