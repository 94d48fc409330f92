package io.synod.recipes.lock;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Asynchronous test-and-set lock. No thread is blocked while waiting. How it waits is its {@link LockStrategy}:
 *
 * <ul>
 *   <li><b>WATCH</b> (default): the algorithm of {@link TasLock}, every step a Curator background operation and
 *       every wait a watch.</li>
 *   <li><b>RETRY</b>: the seed paper's synchronous TAS ("The Cost of Consensus", §III): create; on NodeExists create
 *       again (after the optional back-off); one create in flight.</li>
 *   <li><b>POLL</b>: the paper's asynchronous TAS (§III–IV): a create every interval, at most {@code maxInFlight}
 *       outstanding, until one succeeds. Requests of one session are executed in order, so after the winning
 *       create every later one meets our own node (NodeExists) and none can leave a node behind; a create that
 *       nonetheless returns OK after the win (a different session after expiry) is deleted by its czxid.</li>
 * </ul>
 * RETRY and POLL send single requests ({@link LockBackend#create}, {@link LockBackend#read}): a create whose reply is lost (connection loss)
 * makes the next request an ownership read of the holder node (our session and attempt id: adopt it), so our own
 * node is never mistaken for another holder's, nor another's for ours.
 *
 * <p><b>WATCH algorithm.</b> Create {@code <lockPath>/holder}; on NodeExists read it with a watch (adopting it if it is
 * this attempt's own node, whose create reply was lost); when the watch reports the deletion, create again.
 *
 * <p><b>Cost.</b> As {@link TasLock}: uncontended 1 RTT, 2 RTTs per contended try, herd effect on release,
 * release 1 RTT. Without a blocked thread the retry follows the deletion notice immediately, which makes this the
 * cheapest of the four at high RTT when contention is low.
 *
 * <p><b>Fairness.</b> None.
 *
 * <p><b>Cancellation and timeouts.</b> Cancelling the acquisition future gives up; if a create of ours may have
 * succeeded, the node is deleted only after checking that it carries this attempt's id in this session. A hold
 * granted in the same instant as the cancel is released (exactly once: the fixed node name admits only one
 * delete per hold).
 *
 * <p><b>Failures.</b> As {@link TasLock}.
 */
public final class AsyncTasLock extends AsyncLockBase {

    private final String holderPath;

    AsyncTasLock(LockBackend backend, String lockPath, LockOptions options) {
        super(backend, lockPath, options);
        this.holderPath = backend.child(lockPath, TasLock.HOLDER_NODE);
    }

    @Override
    AsyncAttempt newAttempt() {
        return strategy().kind() == LockStrategy.Kind.WATCH ? new Attempt() : new ProbeAttempt();
    }

    /** The RETRY and POLL strategies (see the class comment). */
    private final class ProbeAttempt extends ProbingAttempt {
        final byte[] attemptData = UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8);

        // Guarded by "this".
        private int inFlight;
        private boolean ownershipReadInFlight;
        /** The session in which a create's outcome is unknown (connection loss), or 0. */
        private long uncertainSession;
        private boolean createIssued;
        private boolean won;
        private boolean cleanedUp;

        @Override
        void begin() {
            issue();
        }

        @Override
        void tick() {
            issue();
        }

        /** Sends the next request if the strategy allows: an ownership read while a create's outcome is unknown, else a create. */
        private void issue() {
            long session = backend.sessionId();
            synchronized (this) {
                if (result.isDone() || won || inFlight >= strategy.maxInFlight() || pacedOut()) {
                    return;
                }
                if (uncertainSession != 0 && session != 0 && uncertainSession != session) {
                    uncertainSession = 0; // that session is over, and its node with it
                }
                boolean readOwner = uncertainSession != 0;
                if (readOwner && ownershipReadInFlight) {
                    return;
                }
                inFlight++;
                if (readOwner) {
                    ownershipReadInFlight = true;
                    handle(backend.read(holderPath), this::onOwnerRead);
                } else {
                    createIssued = true;
                    // No session right now: the backend answers CONNECTIONLOSS at once, as a lost connection.
                    handle(backend.create(holderPath, attemptData, false), this::onCreated);
                }
            }
        }

        private void onCreated(LockBackend.Reply reply) {
            synchronized (this) {
                inFlight--;
            }
            try {
                switch (reply.code()) {
                    case OK -> {
                        connectionWorks();
                        parentFound();
                        if (claimWin()) {
                            grantAndComplete(holderPath, reply.entry());
                        } else {
                            // Lost the race against our own winning create or an abandonment: never leave this node behind.
                            SyncSupport.logIfFailed(backend.deleteOwned(lockPath, holderPath, reply.entry().ownerSession(),
                                    reply.entry().token()), lockPath);
                        }
                    }
                    case NODEEXISTS -> {
                        connectionWorks();
                        parentFound();
                        noteFoundTaken();
                        afterNegative(this::issue);
                    }
                    case NONODE -> recreateParentThen(this::issue);
                    case CONNECTIONLOSS, OPERATIONTIMEOUT -> {
                        synchronized (this) {
                            if (reply.sessionId() != 0) {
                                uncertainSession = reply.sessionId();
                            }
                        }
                        onConnectionLoss("create holder node", this::issue);
                    }
                    // A test-and-set waiter owns no node: after expiry it goes on in the session Curator opens next.
                    case SESSIONEXPIRED, SESSIONMOVED -> onConnectionLoss("create holder node", this::issue);
                    default -> fail(translate("create holder node", reply.code(), null));
                }
            } finally {
                maybeCleanUp();
            }
        }

        private void onOwnerRead(LockBackend.Reply reply) {
            synchronized (this) {
                inFlight--;
                ownershipReadInFlight = false;
            }
            try {
                switch (reply.code()) {
                    case OK -> {
                        connectionWorks();
                        boolean ours = reply.entry().isOwnedBy(reply.sessionId()) && Arrays.equals(reply.data(), attemptData);
                        synchronized (this) {
                            uncertainSession = 0;
                        }
                        if (ours && claimWin()) {
                            grantAndComplete(holderPath, reply.entry()); // our create succeeded though its reply was lost
                        } else if (!ours) {
                            afterNegative(this::issue);
                        }
                    }
                    case NONODE -> {
                        connectionWorks();
                        synchronized (this) {
                            uncertainSession = 0;
                        }
                        afterNegative(this::issue);
                    }
                    case CONNECTIONLOSS, OPERATIONTIMEOUT -> onConnectionLoss("read holder node", this::issue);
                    case SESSIONEXPIRED, SESSIONMOVED -> {
                        synchronized (this) {
                            uncertainSession = 0;
                        }
                        onConnectionLoss("read holder node", this::issue);
                    }
                    default -> fail(translate("read holder node", reply.code(), null));
                }
            } finally {
                maybeCleanUp();
            }
        }

        private synchronized boolean claimWin() {
            if (won || result.isDone()) {
                return false;
            }
            won = true;
            return true;
        }


        @Override
        void cleanUp() {
            maybeCleanUp();
        }

        /**
         * Once the attempt is over and no request is outstanding: if it was not granted, remove a node a create of
         * ours may have made unseen (read first: our session and attempt id only).
         */
        private void maybeCleanUp() {
            synchronized (this) {
                if (!result.isDone() || inFlight > 0 || cleanedUp || grantedHold != null || !createIssued) {
                    return;
                }
                cleanedUp = true;
            }
            SyncSupport.logIfFailed(backend.deleteOwnedIfData(lockPath, holderPath, attemptData), lockPath);
        }
    }

    private final class Attempt extends AsyncAttempt {
        final byte[] attemptData = UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8);

        // Guarded by "this".
        private boolean createInFlight;
        private boolean createIssued;
        private boolean cleanedUp;
        private int missingParents; // only touched by the create callback chain, one step at a time

        @Override
        void start() {
            result.whenComplete((hold, error) -> {
                if (error != null) {
                    abandon();
                }
            });
            tryCreate();
        }

        private void tryCreate() {
            synchronized (this) {
                if (result.isDone()) {
                    return;
                }
                waiting = null;
                createInFlight = true;
                createIssued = true;
            }
            Background.then(backend.createRetrying(holderPath, attemptData, false), this::onCreated, this::stepFailed);
        }

        private void onCreated(LockBackend.Reply reply, Throwable error) {
            synchronized (this) {
                createInFlight = false;
            }
            if (result.isDone()) {
                cleanUp(); // abandoned while the create was in flight
            } else if (error != null) {
                fail(translate("create holder node", error));
            } else if (reply.code() == Code.OK) {
                grantAndComplete(holderPath, reply.entry());
            } else if (reply.code() == Code.NODEEXISTS) {
                noteFoundTaken();
                readHolder();
            } else if (reply.code() == Code.NONODE && ++missingParents <= MAX_MISSING_PARENT) {
                tryCreate(); // the container parent was reaped between its creation and our create: again
            } else {
                fail(translate("create holder node", reply.code(), null));
            }
        }

        private void readHolder() {
            WaitTicket ticket = new WaitTicket(this::tryCreate);
            synchronized (this) {
                waiting = ticket;
            }
            Background.then(backend.readAndWatch(holderPath, ticket),
                    (reply, error) -> {
                        if (result.isDone()) {
                            return;
                        }
                        if (error != null) {
                            fail(translate("read holder node", error));
                            return;
                        }
                        Code code = reply.code();
                        if (code == Code.NONODE) {
                            ticket.fire(); // released meanwhile: try again now
                        } else if (code != Code.OK) {
                            fail(translate("read holder node", code, null));
                        } else if (reply.entry().isOwnedBy(backend.sessionId()) && Arrays.equals(reply.data(), attemptData)) {
                            grantAndComplete(holderPath, reply.entry()); // our own create succeeded; its reply was lost and the backend retried
                        }
                        // Otherwise the holder node is someone else's: the watch calls tryCreate when it goes.
                    },
                    this::stepFailed);
        }


        /**
         * Removes the node this attempt may have created; runs once, after the last create's outcome is known. Any
         * create may have succeeded unseen (a NodeExists can answer Curator's retry of our own successful create), so
         * the reaper reads the node and deletes it only if it carries this attempt's id in this session. A granted
         * hold is not touched here: {@link #grantAndComplete} releases it, and a fixed-name node must be deleted once.
         */
        @Override
        void cleanUp() {
            synchronized (this) {
                if (createInFlight || cleanedUp || grantedHold != null || !createIssued) {
                    return;
                }
                cleanedUp = true;
            }
            SyncSupport.logIfFailed(backend.deleteOwnedIfData(lockPath, holderPath, attemptData), lockPath);
        }
    }
}
