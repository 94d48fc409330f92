package io.synod.core.paxos;

/** Where a replica stands. Only {@link #LEADER} proposes new commands. */
public enum Role {
    /** Accepts and learns; forwards clients to the leader hint. */
    FOLLOWER,
    /** Elected by the oracle, running phase 1: does not serve until a read quorum promised. */
    CANDIDATE,
    /** Phase 1 done for its ballot: proposes, commits and serves. */
    LEADER
}
