/**
 * The deterministic fault simulator: N production group drivers (module {@code engine}, with the replica inside) on
 * one thread, in virtual time, with
 * every source of nondeterminism drawn from one seed ({@link io.synod.sim.Simulation#run}).
 *
 * <h2>A seed's life</h2>
 * <pre>
 *   FAULTS ── fault-phase operations invoked ──▶ LIVENESS ── every probe answered ──▶ QUIESCE ──▶ DONE
 *   (faults injected by SimFaults)               (healed, restarted, stable oracle)   (converge)   (final checks)
 * </pre>
 * Each node ({@code SimNode}) runs the server's {@code io.synod.engine.GroupDriver}, fed by {@code SimNodeInputs}
 * as the server's runner feeds it: the driver's persist requests become a simulated fsync on {@code SimDisk}
 * (a crash during it loses or tears the writes, and nothing of that Ready leaves), its messages go through
 * {@code SimNetwork} ({@code SimNodeOutput}), and its answers to {@code SimClients} and {@code SimWatchers}.
 *
 * <h2>What is checked, and against which rule</h2>
 * Agreement per slot across replicas and incarnations (Paxos' safety property, "Paxos Made Simple"
 * §2.2), applied slots in order, acknowledged writes at the slot their reply names and durable on enough disks
 * when the reply leaves, watch events in slot order, no regression
 * of a promise (P1a needs the promise on stable storage) or of the applied slot, convergence after
 * the faults stop, and linearizability of the client history (Herlihy &amp; Wing 1990, checked by
 * {@code io.synod.core.check}). {@link io.synod.sim.Mutation} plants known bugs (wired in one
 * place, {@code NegativeControls}) to show these checks catch them.
 */
package io.synod.sim;
