/**
 * The replication protocol: one Multi-Paxos replica per group, as a sans-I/O state machine in the
 * etcd-io/raft shape. Inputs go to {@link io.synod.core.paxos.Replica} ({@code step}, {@code tick},
 * {@code propose}, {@code onElection}); its output is a {@link io.synod.core.paxos.Ready} (persist,
 * then send and answer, then {@code advance}), and {@link io.synod.core.paxos.ReadyLoop} is the one
 * loop that drives that contract for every runtime (the simulator, the test clusters, the server).
 *
 * <h2>Roles</h2>
 * <pre>
 *                Elected(epoch), (epoch, self) above the promise: promise it, send Prepare
 *   FOLLOWER ─────────────────────────────────────────────────────────────▶ CANDIDATE
 *     ▲  ▲                                                                       │
 *     │  │ phase 1 timeout (resign) · higher ballot (Prepare, Accept, Nack…)     │ a read quorum of
 *     │  └────────────────────────── · LeaderIs(other) ──────────────────────────┤ durable promises,
 *     │                                                                          │ own included
 *     │   higher ballot (Prepare, Accept, Heartbeat, InstallSnapshot, Nack)      ▼
 *     └────────────────────────────  · LeaderIs(other) ◀──────────────────── LEADER
 *                                                          re-propose recovered slots, then serve
 * </pre>
 * Every replica is an acceptor and a learner in every role; only the LEADER proposes.
 *
 * <h2>Parts and the rule each implements</h2>
 * <ul>
 *   <li>{@code Acceptor} — promised ballot, accepted log, snapshot (the durable state). Promise only
 *       above the current promise, never accept below it (Lamport, "Paxos Made Simple" 2001, §2.2,
 *       P1a); a promise or an accept reply leaves only after its fsync (the Ready contract).</li>
 *   <li>{@code Phase1} — the takeover: Prepare from the commit point, keep per slot the value
 *       accepted in the highest ballot, re-propose it (no-ops in gaps) before serving (§2.2 and §3,
 *       "Implementing a State Machine"; PaxStore, Tan et al. 2014, for the external epochs).</li>
 *   <li>{@code Leader} — phase 2: bounded Accept batches, a bounded pipeline window, retransmission,
 *       and the commit rule (a write quorum in one ballot, §2.2; per-entry quorums leave room for
 *       RS-Paxos' {@code Q_W(X)}, Mu et al. 2014, §4; lease hooks may require acceptors or defer).</li>
 *   <li>{@code Learner} — the commit point (a follower takes a slot as chosen only if its entry
 *       there is in the reporting leader's ballot), applying in slot order, at-most-once sessions,
 *       snapshots and log compaction.</li>
 *   <li>{@code CatchUp} — log and snapshot transfer to a lagging follower, one bounded batch in
 *       flight per peer; a chosen value re-sent in a newer ballot stays the only choosable one (P2c).</li>
 *   <li>{@code Clients} — the pending queue, the clients awaiting an answer here, and the one
 *       at-most-once check against the replicated session table.</li>
 * </ul>
 * Leases plug in through {@link io.synod.core.paxos.LeaseHooks}, quorum systems through
 * {@link io.synod.core.paxos.QuorumPolicy}.
 */
package io.synod.core.paxos;
