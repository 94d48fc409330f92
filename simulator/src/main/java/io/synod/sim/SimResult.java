package io.synod.sim;

import io.synod.core.history.History;
import java.util.List;

/**
 * The outcome of one simulated seed.
 *
 * @param config            what ran (replaying this config gives the same result)
 * @param environment       the network, disk and replica configuration the seed drew (for reports)
 * @param traceHash         hash over every event of the run: equal for two runs of one config
 * @param history           the client history that went through the linearizability checker
 * @param operations        client operations invoked
 * @param okOperations      operations that completed ok
 * @param failedOperations  operations that certainly did not take effect
 * @param indeterminateOperations operations whose outcome is unknown (info)
 * @param simulatedNanos    simulated time the seed took
 * @param events            simulator events fired
 * @param promisePages      phase 1 Promise messages delivered that were not the last page of their promise
 * @param snapshotChunks    InstallSnapshot chunks delivered
 * @param violations        what went wrong; empty for a clean seed
 * @param traffic           bytes on the wire and in the logs (coded vs full copies)
 * @param localReads        reads a lease let a replica answer from its own state (every one is in the checked history)
 * @param writesAnsweredBeforeApply writes acknowledged before any replica applied their slot (a quorum-lease leader
 *                          answers a chosen write before the slots ahead of it commit); each checked when its slot applies
 */
public record SimResult(
        SimConfig config,
        String environment,
        long traceHash,
        History history,
        int operations,
        int okOperations,
        int failedOperations,
        int indeterminateOperations,
        long simulatedNanos,
        long events,
        long promisePages,
        long snapshotChunks,
        List<SimViolation> violations,
        SimTraffic traffic,
        long localReads,
        long writesAnsweredBeforeApply) {

    public SimResult {
        violations = List.copyOf(violations);
    }

    public long seed() {
        return config.seed();
    }

    public boolean passed() {
        return violations.isEmpty();
    }

    /** One line: the seed, its trace hash and what happened, the way the CLI prints a violating seed. */
    public String summaryLine() {
        return String.format("seed %d (nodes %d, faults %s%s, %s): %s, %d ops (%d ok, %d fail, %d info), %.3f s simulated, trace %016x",
                seed(), config.nodes(), config.faults().cliName() + (config.coding().enabled() ? ", coding " + config.coding() : ""),
                config.mutation() == Mutation.NONE ? "" : ", mutation " + config.mutation().cliName(), environment,
                passed() ? "ok" : violations.size() + " violation(s): " + violations,
                operations, okOperations, failedOperations, indeterminateOperations, simulatedNanos / 1e9, traceHash);
    }
}
