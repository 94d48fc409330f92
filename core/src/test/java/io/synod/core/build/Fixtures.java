package io.synod.core.build;

import java.io.FileInputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;

/** Classes that each break the sans-I/O rule once (and two that don't), for {@link SansIoRuleTest}. */
final class Fixtures {
    private Fixtures() {}

    static final class ReadsNanoTime {
        long f() {
            return System.nanoTime();
        }
    }

    static final class ReadsWallClock {
        long f() {
            return System.currentTimeMillis();
        }
    }

    static final class UsesInstantNow {
        Instant f() {
            return Instant.now();
        }
    }

    static final class DrawsUnseededRandom {
        int f() {
            return new Random().nextInt();
        }
    }

    static final class UsesThreadLocalRandom {
        int f() {
            return ThreadLocalRandom.current().nextInt();
        }
    }

    static final class Sleeps {
        void f() throws InterruptedException {
            Thread.sleep(1);
        }
    }

    static final class StartsThread {
        void f() {
            new Thread(() -> {}).start();
        }
    }

    static final class TakesLock {
        void f() {
            new ReentrantLock().lock();
        }
    }

    static final class ReadsFile {
        int f() throws IOException {
            try (FileInputStream in = new FileInputStream("x")) {
                return in.read();
            }
        }
    }

    static final class SeededRandom {
        int f(long seed) {
            return new Random(seed).nextInt();
        }
    }

    static final class Pure {
        long f(long nowNanos) {
            return nowNanos * 2 + Math.max(1, nowNanos);
        }
    }
}
