package io.synod.bench.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The per-thread cost rows of {@code bench kv}: thread roles, /proc parsing, and switches seen live. */
class ThreadCostsTest {

    @Test
    void aRoleIsTheThreadNameWithoutItsPoolNumbers() {
        assertEquals("synod-worker", ThreadCosts.role("synod-worker-1 "));
        assertEquals("synod-peer-io", ThreadCosts.role("synod-peer-io-3"));
        assertEquals("GC Thread", ThreadCosts.role("GC Thread#0"));
        assertEquals("C2 CompilerThre", ThreadCosts.role("C2 CompilerThre"));
        assertEquals("42", ThreadCosts.role("42"), "a name of digits only stays itself");
    }

    @Test
    void statFieldsAreCountedAfterANameWithSpacesAndParentheses() {
        String stat = "77 (C2 (x) Thre) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 30 0 99 0 0";
        assertEquals("C2 (x) Thre", ThreadCosts.comm(stat));
        assertEquals(1234, ThreadCosts.field(stat, 14));
        assertEquals(567, ThreadCosts.field(stat, 15));
        assertThrows(IllegalArgumentException.class, () -> ThreadCosts.comm("garbage"));
        String status = "Name:\tjava\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n";
        assertEquals(12, ThreadCosts.statusValue(status, "voluntary_ctxt_switches"));
        assertEquals(3, ThreadCosts.statusValue(status, "nonvoluntary_ctxt_switches"));
        assertThrows(IllegalArgumentException.class, () -> ThreadCosts.statusValue("Name:\tx\n", "voluntary_ctxt_switches"));
    }

    @Test
    void handOffsBetweenTwoThreadsShowAsVoluntarySwitchesOfTheirRole() throws Exception {
        long pid = ProcessHandle.current().pid();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch measured = new CountDownLatch(1);
        Object lock = new Object();
        int[] turn = {0};
        int handOffs = 200;
        Thread partner = new Thread(() -> {
            started.countDown();
            for (int i = 0; i < handOffs; i++) {
                synchronized (lock) {
                    while (turn[0] != 1) {
                        try {
                            lock.wait();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                    turn[0] = 0;
                    lock.notifyAll();
                }
            }
            try {
                measured.await(10, TimeUnit.SECONDS); // an ended thread's counters leave /proc with it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "handoff-partner-1");
        partner.start();
        assertTrue(started.await(10, TimeUnit.SECONDS));
        ThreadCosts before = ThreadCosts.snapshot(List.of(pid));
        for (int i = 0; i < handOffs; i++) {
            synchronized (lock) {
                turn[0] = 1;
                lock.notifyAll();
                while (turn[0] != 0) {
                    lock.wait(10_000);
                }
            }
        }
        ThreadCosts.Spent spent = ThreadCosts.snapshot(List.of(pid)).minus(before);
        measured.countDown();
        partner.join(10_000);
        ThreadCosts.Counters p = spent.byRole().get("handoff-partner");
        // Each of the partner's turns began with a wait for this thread: a voluntary switch per hand-off, about.
        assertTrue(p != null && p.voluntary() >= handOffs / 2, "partner's switches: " + p);
        assertTrue(spent.switches() >= p.voluntary() && spent.voluntary() >= p.voluntary());
    }
}
