package io.synod.core.check;

/**
 * The checker's answer for one key.
 *
 * @param key                the key
 * @param verdict            linearizable, not, or unknown (search bound exceeded)
 * @param checkedOperations  the operations the search had to place: ok appends and reads, and
 *                           indeterminate appends whose value some read returned (failed operations,
 *                           indeterminate reads and indeterminate appends nobody observed carry no
 *                           constraint and are left out)
 * @param exploredStates     distinct (linearized set, list) configurations the search visited
 * @param violation          why the key is not linearizable; null unless the verdict is
 *                           {@link Verdict#NOT_LINEARIZABLE}
 */
public record KeyCheckResult(String key, Verdict verdict, int checkedOperations, long exploredStates,
        Violation violation) {

    /** One paragraph: the verdict and, for a violation, its explanation. */
    public String explanation() {
        String summary = "key " + key + ": " + verdict + " (" + checkedOperations + " operations checked, "
                + exploredStates + " states explored)";
        if (verdict == Verdict.UNKNOWN) {
            return summary + "\n  the search reached its bound on explored states before deciding;"
                    + " raise maxExploredStatesPerKey or shorten the history";
        }
        return violation == null ? summary : summary + "\n" + violation.explanation();
    }
}
