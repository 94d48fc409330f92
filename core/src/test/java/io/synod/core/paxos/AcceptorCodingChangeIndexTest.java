package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The acceptor's index of its coding changes ({@link Acceptor#fewestFailuresAbove}, asked on every quorum-lease read
 * decision) against the walk of the log it replaces: random accepts of plain values and of coding changes (new
 * slots and overwrites of either kind), the applied slot moving, compactions, snapshot installs and restarts from
 * what was written.
 */
class AcceptorCodingChangeIndexTest {
    private static final int N = 7;

    /** The reference: every slot from {@code slot + 1} to the acceptor's last slot, as the lease view walked them. */
    private static int scanned(Acceptor acceptor, long slot, int failures) {
        int fewest = failures;
        for (long s = slot + 1; s <= acceptor.lastSlot(); s++) {
            Entry entry = acceptor.entry(s);
            if (entry != null && Coding.isChange(entry.command())) {
                fewest = Math.min(fewest, Coding.failuresAfter(entry.command()));
            }
        }
        return fewest;
    }

    private static Command change(int f) {
        return Coding.rsPaxos(N, f, 1, 1024).changeCommand();
    }

    @Test
    void answersLikeTheWalkOfTheLogItReplaces() {
        int lowered = 0;
        int checks = 0;
        for (int seed = 0; seed < 300; seed++) {
            Random random = new Random(seed);
            ReplicaContext ctx = new ReplicaContext(ReplicaConfig.defaults(0, N), Coding.rsPaxos(N, 3, 1, 1024),
                    GroupMembership.allVoters(N), 0);
            Acceptor acceptor = new Acceptor(ctx, DurableState.EMPTY);
            long applied = 0;
            long epoch = 1;
            for (int op = 0; op < 400; op++) {
                int kind = random.nextInt(100);
                long top = acceptor.lastSlot();
                if (kind < 60) {
                    // A new slot just past the top, or an overwrite (a later ballot's phase 1) of one above applied.
                    long slot = random.nextInt(3) == 0 ? applied + 1 + random.nextInt((int) Math.max(1, top - applied))
                            : top + 1 + random.nextInt(3);
                    Command command = random.nextInt(4) == 0 ? change(1 + random.nextInt(3))
                            : new Command(1 + random.nextInt(5), op, new byte[] {(byte) op});
                    if (random.nextInt(10) == 0) {
                        epoch++;
                    }
                    acceptor.accept(new Entry(slot, new Ballot(epoch, random.nextInt(N)), command));
                } else if (kind < 80) {
                    applied = Math.min(top, applied + random.nextInt(6));
                } else if (kind < 88) {
                    if (applied > 0) {
                        acceptor.compactThrough(1 + random.nextInt((int) applied));
                    }
                } else if (kind < 94) {
                    // A snapshot install, possibly past everything held (a lagging replica catching up).
                    long slot = applied + random.nextInt(8);
                    if (slot > acceptor.snapshot().lastIncludedSlot()) {
                        acceptor.replaceSnapshot(new Snapshot(slot, new byte[0], new byte[0]));
                        acceptor.compactThrough(slot);
                        applied = slot;
                    }
                } else {
                    // A restart: the acceptor rebuilt from the entries it wrote, in any order.
                    List<Entry> entries = new ArrayList<>();
                    acceptor.entriesFrom(1).forEach(entries::add);
                    Collections.shuffle(entries, random);
                    acceptor = new Acceptor(ctx, new DurableState(acceptor.promised(), acceptor.snapshot(), entries));
                }
                for (long slot : new long[] {applied, Math.max(0, applied - 3), applied + random.nextInt(5)}) {
                    int failures = 1 + random.nextInt(3);
                    int expected = scanned(acceptor, slot, failures);
                    assertEquals(expected, acceptor.fewestFailuresAbove(slot, failures),
                            "seed " + seed + " op " + op + " above slot " + slot);
                    checks++;
                    if (expected < failures) {
                        lowered++;
                    }
                }
            }
        }
        // The sequences must reach the interesting case often: a change past the slot asked lowering the answer.
        assertTrue(lowered > checks / 20, lowered + " of " + checks + " answers lowered by a pending change");
    }
}
