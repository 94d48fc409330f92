package io.synod.recipes.lock;

import java.util.Optional;
import java.util.UUID;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Asynchronous queue lock. No thread is blocked while queued. How it waits is its {@link LockStrategy}:
 *
 * <ul>
 *   <li><b>WATCH</b> (default): the algorithm of {@link QueueLock}, every step a Curator background operation and
 *       every wait a watch on the predecessor.</li>
 *   <li><b>POLL</b>: the seed paper's asynchronous queue lock ("The Cost of Consensus", §III–IV): the create of our
 *       sequential node goes out together with the first children listing, and listings follow every interval (at
 *       most {@code maxInFlight} outstanding). The lock is held when the create has returned and the newest listing
 *       issued after the create shows our node first. Requests of one session execute in order, so such a listing
 *       reflects our node; uncontended this costs one RTT, not two.</li>
 *   <li><b>RETRY</b>: as POLL with one listing in flight, the next sent as soon as a listing shows us not first
 *       (plus the back-off).</li>
 * </ul>
 * The paper's option of switching from polling to a predecessor watch after one RTT is not implemented.
 *
 * <p><b>WATCH algorithm.</b> Create the ephemeral-sequential child, list the children, and if ours is not the lowest,
 * set a watch on its predecessor only; the watch's notification lists the children again.
 *
 * <p><b>Cost.</b> As {@link QueueLock}: uncontended 2 RTTs, contended 3 RTTs to join plus 1 to 2 per wake-up,
 * release 1 RTT; but the client spends no thread per waiter, so many acquisitions can be queued at once, and the
 * next step starts the moment a reply arrives.
 *
 * <p><b>Fairness.</b> FIFO in order of creation of the queue nodes.
 *
 * <p><b>Cancellation and timeouts.</b> Cancelling the acquisition future deletes our node; if the create is still
 * in flight, the node is deleted when its reply arrives, and if that reply is lost, by its protected name. A hold
 * granted in the same instant as the cancel is released.
 *
 * <p><b>Failures.</b> As {@link QueueLock}.
 */
public final class AsyncQueueLock extends AsyncLockBase {

    AsyncQueueLock(LockBackend backend, String lockPath, LockOptions options) {
        super(backend, lockPath, options);
    }

    @Override
    AsyncAttempt newAttempt() {
        return strategy().kind() == LockStrategy.Kind.WATCH ? new Attempt() : new ProbeAttempt();
    }

    /** The RETRY and POLL strategies (see the class comment). */
    private final class ProbeAttempt extends ProbingAttempt {
        // Guarded by "this".
        private String attemptId = UUID.randomUUID().toString();
        private boolean createInFlight;
        /** Issue order of requests on the handle: a listing proves something about our create only if issued after it. */
        private long issued;
        private long createSeq;
        /** The session in which our create's outcome is unknown (connection loss), or 0. */
        private long uncertainSession;
        private boolean recovering;
        private int listingsInFlight;
        private int requeues;
        private String ourPath;
        private String ourName;
        private LockBackend.Entry ourEntry;
        private boolean cleanedUp;

        @Override
        void begin() {
            synchronized (this) {
                issueCreate();
                issueListing(); // in parallel with the create: answered after it, so it already tells whether we are first
            }
        }

        @Override
        void tick() {
            synchronized (this) {
                issueListing();
            }
        }

        private void nextListing() {
            afterNegative(() -> {
                synchronized (this) {
                    issueListing();
                }
            });
        }

        /** Guarded by "this"; requests are issued under the lock so that their sequence numbers follow issue order. */
        private void issueCreate() {
            if (result.isDone() || createInFlight) {
                return;
            }
            createInFlight = true;
            createSeq = ++issued;
            // No session right now: the backend answers CONNECTIONLOSS with session 0 at once (never sent).
            handle(backend.create(backend.child(lockPath, QueueNodes.namePrefix(attemptId)), new byte[0], true), this::onCreated);
        }

        /** Guarded by "this". */
        private void issueListing() {
            if (result.isDone() || listingsInFlight >= strategy.maxInFlight() || pacedOut()) {
                return;
            }
            listingsInFlight++;
            long seq = ++issued;
            handle(backend.list(lockPath), reply -> onListing(reply, seq));
        }

        private void onCreated(LockBackend.Reply reply) {
            synchronized (this) {
                createInFlight = false;
                if (reply.code() == Code.OK) {
                    ourName = backend.nameOf(reply.key());
                    ourPath = backend.child(lockPath, ourName);
                    ourEntry = reply.entry();
                }
            }
            try {
                switch (reply.code()) {
                    case OK -> {
                        connectionWorks();
                        parentFound();
                    }
                    case NONODE -> recreateParentThen(() -> {
                        synchronized (this) {
                            issueCreate();
                        }
                    });
                    case CONNECTIONLOSS, OPERATIONTIMEOUT -> {
                        if (reply.sessionId() == 0) {
                            // Never sent (no handle at the time): nothing to find out, send it again.
                            onConnectionLossRedo("create queue node", () -> {
                                synchronized (this) {
                                    issueCreate();
                                }
                            });
                        } else {
                            synchronized (this) {
                                uncertainSession = reply.sessionId();
                            }
                            // The next listing issued after the create, in the same session, tells whether the create happened.
                            onConnectionLoss("create queue node", this::nextListing);
                        }
                    }
                    case SESSIONEXPIRED, SESSIONMOVED -> onConnectionLossRedo("create queue node", () -> {
                        synchronized (this) {
                            issueCreate(); // we had no node yet: nothing lost, create in the next session
                        }
                    });
                    default -> fail(translate("create queue node", reply.code(), null));
                }
            } finally {
                maybeCleanUp();
            }
        }

        private void onListing(LockBackend.Reply reply, long seq) {
            synchronized (this) {
                listingsInFlight--;
            }
            try {
                if (result.isDone()) {
                    return;
                }
                if (reply.code() == Code.CONNECTIONLOSS && reply.sessionId() == 0) {
                    return; // never sent (no session right now): the next tick or reply tries again
                }
                switch (reply.code()) {
                    case OK -> {
                        connectionWorks();
                        onChildren(reply, seq);
                    }
                    case NONODE -> {
                        if (placeWasIn(reply.sessionId(), seq)) {
                            lostPlace("the lock path vanished while queued");
                        } else {
                            nextListing(); // our create makes the path
                        }
                    }
                    case CONNECTIONLOSS, OPERATIONTIMEOUT -> onConnectionLoss("list queue", this::nextListing);
                    case SESSIONEXPIRED, SESSIONMOVED -> {
                        if (placeWasIn(reply.sessionId(), seq)) {
                            lostPlace("session expired while queued");
                        } else {
                            onConnectionLoss("list queue", this::nextListing);
                        }
                    }
                    default -> fail(translate("list queue", reply.code(), null));
                }
            } finally {
                maybeCleanUp();
            }
        }

        /** Whether we had a node in that session when the request was issued. */
        private synchronized boolean placeWasIn(long session, long seq) {
            return ourName != null && ourEntry.ownerSession() == session && seq > createSeq;
        }

        private void onChildren(LockBackend.Reply reply, long seq) {
            String name;
            String path;
            LockBackend.Entry entry;
            String id;
            String prefix;
            long ourSession;
            boolean resolveUncertain;
            synchronized (this) {
                name = ourName;
                path = ourPath;
                entry = ourEntry;
                id = attemptId;
                prefix = QueueNodes.namePrefix(attemptId);
                ourSession = name == null ? 0 : ourEntry.ownerSession();
                resolveUncertain = name == null && !createInFlight && !recovering && seq > createSeq && uncertainSession != 0;
                if (resolveUncertain && uncertainSession != reply.sessionId()) {
                    uncertainSession = 0; // that session is over, and any node it made with it
                    issueCreate();
                    return;
                }
            }
            if (name == null) {
                if (resolveUncertain) {
                    Optional<String> made = reply.children().stream().filter(child -> child.startsWith(prefix)).findFirst();
                    synchronized (this) {
                        if (made.isEmpty()) {
                            uncertainSession = 0;
                            issueCreate(); // the lost create never executed
                        } else {
                            recovering = true;
                        }
                    }
                    made.ifPresent(this::adopt);
                }
                nextListing();
                return;
            }
            if (reply.sessionId() != ourSession) {
                lostPlace("session changed while queued; our node " + path + " is gone");
                return;
            }
            if (seq < createSeq) {
                nextListing(); // issued before our create: proves nothing
                return;
            }
            QueueNodes.View queue = QueueNodes.view(reply.children(), name, id);
            for (String stray : queue.strayDuplicates) {
                SyncSupport.logIfFailed(backend.deleteOwned(lockPath, backend.child(lockPath, stray), ourSession, LockBackend.ANY_TOKEN), lockPath);
            }
            if (!queue.containsOurs()) {
                lostPlace("our queue node " + path + " disappeared while queued");
            } else if (queue.oursIsFirst()) {
                grantAndComplete(path, entry);
            } else {
                nextListing();
            }
        }

        /** Our create executed though its reply was lost: learn the node's entry (its token is the fencing token). */
        private void adopt(String child) {
            String path = backend.child(lockPath, child);
            handle(backend.exists(path), reply -> {
                synchronized (this) {
                    recovering = false; // no session right now (CONNECTIONLOSS): still uncertain, a later listing tries again
                    if (reply.code() == Code.OK && reply.entry() != null && reply.entry().ownerSession() == reply.sessionId()) {
                        uncertainSession = 0;
                        ourName = child;
                        ourPath = path;
                        ourEntry = reply.entry();
                    } else if (reply.code() == Code.NONODE) {
                        uncertainSession = 0;
                        issueCreate();
                    }
                    // Otherwise still uncertain: the next listing asks again.
                }
                maybeCleanUp();
            });
        }

        /**
         * Our place in the queue is gone (session ended, node deleted). By default join again at the end; with
         * {@code requeueOnSessionLoss(false)}, or after {@link LockOptions#MAX_REQUEUES}, fail.
         */
        private void lostPlace(String why) {
            String oldPath;
            long oldSession;
            synchronized (this) {
                if (!mayRequeue(++requeues)) {
                    oldPath = null;
                    oldSession = 0;
                } else {
                    oldPath = ourPath;
                    oldSession = ourEntry.ownerSession();
                    ourName = null;
                    ourPath = null;
                    ourEntry = null;
                    attemptId = UUID.randomUUID().toString();
                    issueCreate();
                }
            }
            if (oldPath == null) {
                fail(new LockSessionLostException(lockPath, why));
            } else {
                deleteLostPlace(oldPath, oldSession);
                nextListing();
            }
        }

        @Override
        void cleanUp() {
            maybeCleanUp();
        }

        /** Once over and the create's outcome known: delete our node, or find it by its protected name. */
        private void maybeCleanUp() {
            String path;
            long session;
            String reapId;
            synchronized (this) {
                if (!result.isDone() || createInFlight || recovering || cleanedUp || grantedHold != null) {
                    return;
                }
                cleanedUp = true;
                path = ourPath;
                session = ourEntry == null ? 0 : ourEntry.ownerSession();
                reapId = uncertainSession != 0 || ourPath == null ? attemptId : null;
            }
            if (path != null) {
                SyncSupport.logIfFailed(backend.deleteOwned(lockPath, path, session, LockBackend.ANY_TOKEN), lockPath);
            }
            if (reapId != null) {
                SyncSupport.logIfFailed(backend.deleteOwnedChildren(lockPath, QueueNodes.namePrefix(reapId)), lockPath);
            }
        }
    }

    private final class Attempt extends AsyncAttempt {
        // Guarded by "this".
        private String attemptId = UUID.randomUUID().toString();
        private boolean createInFlight = true;
        private boolean strayDuplicatesHandled;
        private boolean cleanedUp;
        private String ourPath;
        private String ourName;
        private LockBackend.Entry ourEntry;
        private int requeues;
        private int missingParents;

        @Override
        void start() {
            result.whenComplete((hold, error) -> {
                if (error != null) {
                    abandon();
                }
            });
            createNode();
        }

        private void createNode() {
            String attemptId;
            synchronized (this) {
                createInFlight = true;
                attemptId = this.attemptId;
            }
            String prefixPath = backend.child(lockPath, QueueNodes.namePrefix(attemptId));
            Background.then(backend.createRetrying(prefixPath, null, true), this::onCreated, this::stepFailed);
        }

        private void onCreated(LockBackend.Reply reply, Throwable error) {
            boolean created = error == null && reply.code() == Code.OK;
            synchronized (this) {
                createInFlight = false;
                if (created) {
                    ourPath = reply.key();
                    ourName = backend.nameOf(ourPath);
                    ourEntry = reply.entry();
                }
            }
            if (result.isDone()) {
                cleanUp(); // abandoned while the create was in flight
            } else if (error == null && reply.code() == Code.NONODE && ++missingParents <= MAX_MISSING_PARENT) {
                createNode(); // the container parent was reaped between its creation and our create: again
            } else if (!created) {
                fail(error != null ? translate("create queue node", error) : translate("create queue node", reply.code(), null));
            } else {
                checkQueue();
            }
        }

        private void checkQueue() {
            if (result.isDone()) {
                return;
            }
            synchronized (this) {
                waiting = null;
            }
            Background.then(backend.listRetrying(lockPath), this::onChildren, this::stepFailed);
        }

        private void onChildren(LockBackend.Reply reply, Throwable error) {
            if (result.isDone()) {
                return;
            }
            if (error != null) {
                fail(translate("list queue", error));
                return;
            }
            Code code = reply.code();
            if (code == Code.NONODE || code == Code.SESSIONEXPIRED) {
                lostPlace("the lock path vanished while queued; our node " + ourPath + " is gone");
                return;
            }
            if (code != Code.OK) {
                fail(translate("list queue", code, null));
                return;
            }
            if (backend.sessionId() != ourEntry.ownerSession()) {
                lostPlace("session changed while queued; our node " + ourPath + " is gone");
                return;
            }
            QueueNodes.View queue = QueueNodes.view(reply.children(), ourName, currentAttemptId());
            for (String stray : queue.strayDuplicates) {
                SyncSupport.logIfFailed(backend.deleteOwned(lockPath, backend.child(lockPath, stray), ourEntry.ownerSession(), LockBackend.ANY_TOKEN), lockPath);
            }
            synchronized (this) {
                strayDuplicatesHandled = true;
            }
            if (!queue.containsOurs()) {
                lostPlace("our queue node " + ourPath + " disappeared while queued");
            } else if (queue.oursIsFirst()) {
                grantAndComplete(ourPath, ourEntry);
            } else {
                watchPredecessor(backend.child(lockPath, queue.predecessor()));
            }
        }

        private synchronized String currentAttemptId() {
            return attemptId;
        }

        /** Our place is gone: join the queue again at the end (default), or fail fast (see {@link LockOptions}). */
        private void lostPlace(String why) {
            String oldPath;
            long oldSession;
            synchronized (this) {
                if (!mayRequeue(++requeues)) {
                    oldPath = null;
                    oldSession = 0;
                } else {
                    oldPath = ourPath;
                    oldSession = ourEntry.ownerSession();
                    ourPath = null;
                    ourName = null;
                    ourEntry = null;
                    strayDuplicatesHandled = false;
                    attemptId = UUID.randomUUID().toString();
                }
            }
            if (oldPath == null) {
                fail(new LockSessionLostException(lockPath, why));
                return;
            }
            deleteLostPlace(oldPath, oldSession);
            createNode();
        }

        private void watchPredecessor(String predecessorPath) {
            WaitTicket ticket = new WaitTicket(this::checkQueue);
            synchronized (this) {
                waiting = ticket;
            }
            Background.then(backend.existsAndWatch(predecessorPath, ticket),
                    (reply, error) -> {
                        if (error != null) {
                            fail(translate("watch predecessor", error));
                        } else if (reply.code() == Code.NONODE) {
                            ticket.fire(); // gone already: look again now
                        } else if (reply.code() != Code.OK) {
                            fail(translate("watch predecessor", reply.code(), null));
                        }
                    },
                    this::stepFailed);
        }

        /** Removes what this attempt created; runs once, after the create's outcome is known. */
        @Override
        void cleanUp() {
            String nodeToDelete;
            synchronized (this) {
                if (createInFlight || cleanedUp) {
                    return;
                }
                cleanedUp = true;
                nodeToDelete = strayDuplicatesHandled ? ourPath : null;
            }
            if (nodeToDelete != null) {
                SyncSupport.logIfFailed(backend.deleteOwned(lockPath, nodeToDelete, ourEntry.ownerSession(), LockBackend.ANY_TOKEN), lockPath);
            } else {
                // The create failed, or succeeded without our having listed the queue: find every node of this attempt.
                SyncSupport.logIfFailed(backend.deleteOwnedChildren(lockPath, QueueNodes.namePrefix(currentAttemptId())), lockPath);
            }
        }
    }
}
