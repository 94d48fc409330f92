package io.synod.core.paxos;

import io.synod.core.util.Check;
import io.synod.protocol.ClientReply;
import java.util.List;

/**
 * The one loop that drives a {@link Replica} through the {@link Ready} contract, shared by the
 * simulator, the test clusters and the server runtime: take a Ready, (1) persist its promise,
 * entries and snapshot, then drop compacted entries, (2) send its messages, deliver its client
 * replies and pass on a resignation, (3) {@link Replica#advance advance}; repeat while the replica
 * has output. The committed entries a Ready hands out are applied first, as soon as it is taken
 * ({@link Applier}, then {@link Replica#applied}), so the application's state is the replica's applied
 * slot whenever an input arrives; their answers leave with the Ready's other replies, after the
 * persistence. Persistence may be asynchronous (group commit on a disk thread, a simulated fsync):
 * the loop then waits, the runtime keeps stepping inputs into the replica (its next Ready batches
 * them), and calls {@link #persisted(Ready)} when the write is durable.
 *
 * <p>Call {@link #drive()} after every input ({@code step}, {@code tick}, {@code propose},
 * {@code onElection}). One loop per replica incarnation; after a crash, build a new one.
 * Not thread-safe: call it from the replica's event loop only.
 *
 * <p><b>Accepts leave before the leader's own fsync.</b> A Ready that must persist first sends its
 * {@link Message.Accept}s ({@link #maySendBeforePersist}), then persists, then sends the rest: the
 * leader writes its log in parallel with replicating it, so a replicated commit waits for one fsync
 * round (the slowest of the leader's and a follower's, overlapped) instead of two in series (Raft
 * thesis, Ongaro 2014, §10.2.1). Safe because a proposal is not a vote: the leader counts its own
 * acceptance of an entry only in {@link Replica#advance}, after its fsync, and only a quorum of
 * durable acceptances chooses a value; its ballot was made durable before phase 1 could finish, so a
 * crash before the fsync cannot lead to the same ballot being used again with another value. Every
 * message that reports local durable state (Promise, Accepted, Nack, replies to clients) still waits
 * for the fsync; the negative control {@code send-before-fsync} sends those early too and is caught.
 */
public final class ReadyLoop {
    /** A replica producing more Readys than this in a row without waiting for anything is stuck. */
    public static final int MAX_READYS_PER_DRIVE = 10_000;

    /** What the runtime does with a Ready. Only {@link #persist} decides whether the loop waits. */
    public interface Sink {
        /**
         * A Ready was taken and its committed entries applied, before anything else happens to it: metrics,
         * tracing, invariant checks of {@link Ready#committed()}.
         */
        default void taken(Ready ready) {}

        /**
         * Step 1: make {@link Ready#promised()}, {@link Ready#entries()} and {@link Ready#snapshot()}
         * durable (fsync). Called only when {@link Ready#mustPersist()}. Returns true if they are
         * durable on return; false if the runtime will call {@link ReadyLoop#persisted(Ready)} once
         * they are (nothing of this Ready leaves before then; if the process dies first, nothing ever does).
         */
        boolean persist(Ready ready);

        /** Step 1, after the writes are durable: entries at or below {@code slot} (> 0) may be deleted. */
        void compactThrough(long slot);

        /** Step 2: a message to another replica (best effort; the protocol retransmits). */
        void send(Message message);

        /** Step 2: an answer to a client. */
        void reply(ClientReply reply);

        /** Step 2: the replica gives up leadership it was handed; ask the election service to pick again. */
        void resign();

        /**
         * Step 1, before the writes start (only when {@link Ready#mustPersist()}): the messages that
         * do not depend on them ({@link ReadyLoop#maySendBeforePersist}), in order.
         */
        default void deliverBeforePersist(Ready ready) {
            for (Message message : ready.messages()) {
                if (maySendBeforePersist(message)) {
                    send(message);
                }
            }
        }

        /**
         * Step 2 as a whole: the messages in order (except those {@link #deliverBeforePersist} sent
         * already), then replies, then the resignation.
         */
        default void deliver(Ready ready) {
            boolean sentEarly = ready.mustPersist();
            for (Message message : ready.messages()) {
                if (!(sentEarly && maySendBeforePersist(message))) {
                    send(message);
                }
            }
            for (ClientReply reply : ready.replies()) {
                reply(reply);
            }
            if (ready.resign()) {
                resign();
            }
        }
    }

    /**
     * True for the messages a Ready may send before its own writes are durable: a leader's Accepts
     * (proposals, see the class comment). Everything an acceptor or learner says about its durable
     * state waits for the fsync.
     */
    public static boolean maySendBeforePersist(Message message) {
        return message instanceof Message.Accept;
    }

    private final Replica replica;
    private final Applier applier;
    private final Sink sink;
    private Ready persisting;
    /** The application's answers for the Ready being persisted. */
    private List<ClientReply> persistingAnswers = List.of();

    /** A loop that applies the committed entries with the replica's own {@link Replica#applier()}. */
    public ReadyLoop(Replica replica, Sink sink) {
        this(replica, replica.applier(), sink);
    }

    public ReadyLoop(Replica replica, Applier applier, Sink sink) {
        Check.argument(replica != null && applier != null && sink != null, "a ready loop needs a replica, an applier and a sink");
        this.replica = replica;
        this.applier = applier;
        this.sink = sink;
    }

    public Replica replica() {
        return replica;
    }

    /** The Ready whose persistence is in progress, or null. */
    public Ready persisting() {
        return persisting;
    }

    /** Handles Readys until the replica has none, or one waits for its persistence. */
    public void drive() {
        int readys = 0;
        while (persisting == null && replica.hasReady()) {
            Check.state(++readys <= MAX_READYS_PER_DRIVE,
                    "node %d produced more than %d Readys in a row without waiting for any input", replica.nodeId(),
                    MAX_READYS_PER_DRIVE);
            Ready ready = replica.ready();
            List<ClientReply> answers = applier.apply(ready);
            replica.applied(ready);
            sink.taken(ready);
            if (ready.mustPersist()) {
                sink.deliverBeforePersist(ready);
                if (!sink.persist(ready)) {
                    persisting = ready;
                    persistingAnswers = answers;
                    return;
                }
            }
            complete(ready, answers);
        }
    }

    /** The runtime made {@code ready} (the one {@link Sink#persist} returned false for) durable: finish it and go on. */
    public void persisted(Ready ready) {
        Check.argument(ready != null && ready == persisting, "persisted() must be given the Ready being persisted");
        persisting = null;
        List<ClientReply> answers = persistingAnswers;
        persistingAnswers = List.of();
        complete(ready, answers);
        drive();
    }

    private void complete(Ready ready, List<ClientReply> answers) {
        if (ready.compactThroughSlot() > 0) {
            sink.compactThrough(ready.compactThroughSlot());
        }
        for (ClientReply answer : answers) {
            sink.reply(answer); // The application's answers: their entries were chosen before this Ready's writes.
        }
        sink.deliver(ready);
        replica.advance(ready);
    }
}
