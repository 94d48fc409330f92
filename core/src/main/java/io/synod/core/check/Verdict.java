package io.synod.core.check;

/** The answer of the linearizability checker, for one key or for a whole history. */
public enum Verdict {
    /** A linearization exists. */
    LINEARIZABLE,
    /** No linearization exists: the search covered every possibility. */
    NOT_LINEARIZABLE,
    /**
     * The search hit its bound on explored states before finding a linearization or ruling every one
     * out. Never to be read as "ok": rerun with a larger bound or a smaller history.
     */
    UNKNOWN
}
