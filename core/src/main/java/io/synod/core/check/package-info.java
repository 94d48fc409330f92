/**
 * Linearizability checking of list-append histories.
 *
 * <p>{@link io.synod.core.check.LinearizabilityChecker#check} returns a
 * {@link io.synod.core.check.CheckResult}: a {@link io.synod.core.check.Verdict} per key and overall, and
 * for each key that is not linearizable a {@link io.synod.core.check.Violation} explaining why. The search
 * follows Wing &amp; Gong (1993) and Lowe (2017), key by key (Herlihy &amp; Wing 1990; Horn &amp;
 * Kroening 2015).
 */
package io.synod.core.check;
