package io.synod.core.sim;

import io.synod.core.paxos.Coding;
import io.synod.core.util.Check;

/**
 * The value coding a simulated group runs (RS-Paxos, {@link Coding}) and the value sizes its clients
 * write: {@code largePercent} of the appends carry a note of {@code minLargeBytes..maxLargeBytes}
 * bytes (uniform), the rest are a few dozen bytes. With a threshold inside that range, the mix
 * crosses it, so one log holds plain and coded entries side by side.
 */
public record SimCoding(Coding coding, int largePercent, int minLargeBytes, int maxLargeBytes) {
    /** Threshold the simulator's coded mode uses: values at or above it are coded. */
    public static final int THRESHOLD_BYTES = 512;

    /** Plain Multi-Paxos with small values (the simulator's default). */
    public static final SimCoding OFF = new SimCoding(Coding.OFF, 0, 0, 0);

    public SimCoding {
        Check.argument(coding != null, "coding must not be null");
        Check.argument(largePercent >= 0 && largePercent <= 100, "largePercent must be 0..100, got %d", largePercent);
        Check.argument(minLargeBytes >= 0 && maxLargeBytes >= minLargeBytes, "large value sizes %d..%d are not a range",
                minLargeBytes, maxLargeBytes);
    }

    /**
     * RS-Paxos (N, F, X) with the simulator's mix: half the appends carry 64..3072-byte notes, values
     * of {@value #THRESHOLD_BYTES} bytes or more are coded; followers defer rebuilding coded values
     * ({@link Coding#withDeferredRebuild()}).
     */
    public static SimCoding rsPaxos(int n, int f, int x) {
        return new SimCoding(Coding.rsPaxos(n, f, x, THRESHOLD_BYTES).withDeferredRebuild(), 50, 64, 3072);
    }

    /** {@link #rsPaxos} with followers that rebuild every coded value to apply it (recovery reads, no deferral). */
    public static SimCoding rsPaxosRebuilding(int n, int f, int x) {
        return new SimCoding(Coding.rsPaxos(n, f, x, THRESHOLD_BYTES), 50, 64, 3072);
    }

    /** Every append carries exactly {@code valueBytes} bytes of note, with {@code coding} (the byte measurements). */
    public static SimCoding fixedSize(Coding coding, int valueBytes) {
        return new SimCoding(coding, 100, valueBytes, valueBytes);
    }

    public boolean enabled() {
        return coding.enabled();
    }

    @Override
    public String toString() {
        return enabled() ? coding.nodes() + "," + coding.failures() + "," + coding.dataShards()
                + (coding.defersRebuild() ? "" : " rebuilding") : "off";
    }
}
