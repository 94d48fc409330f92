package io.synod.sim;

import io.synod.core.paxos.Coding;
import io.synod.core.util.Check;

/**
 * The value coding a simulated group runs (RS-Paxos, {@link Coding}) and the value sizes its clients
 * write: {@code largePercent} of the appends carry a note of {@code minLargeBytes..maxLargeBytes}
 * bytes (uniform), the rest are a few dozen bytes. With a threshold inside that range, the mix
 * crosses it, so one log holds plain and coded entries side by side.
 *
 * <p>{@code alternate} (or null): the simulator's coding-change event makes the leader of the moment
 * propose a change between {@code coding}'s and {@code alternate}'s F and X every few milliseconds of
 * the fault phase (docs/erasure.md "Coding changes"; N stays).
 */
public record SimCoding(Coding coding, int largePercent, int minLargeBytes, int maxLargeBytes, Coding alternate) {
    /** Threshold the simulator's coded mode uses: values at or above it are coded. */
    public static final int THRESHOLD_BYTES = 512;

    /** Plain Multi-Paxos with small values (the simulator's default). */
    public static final SimCoding OFF = new SimCoding(Coding.OFF, 0, 0, 0);

    public SimCoding {
        Check.argument(coding != null, "coding must not be null");
        Check.argument(largePercent >= 0 && largePercent <= 100, "largePercent must be 0..100, got %d", largePercent);
        Check.argument(minLargeBytes >= 0 && maxLargeBytes >= minLargeBytes, "large value sizes %d..%d are not a range",
                minLargeBytes, maxLargeBytes);
        Check.argument(alternate == null || coding.enabled() && alternate.nodes() == coding.nodes(),
                "a coding change needs coding on and the same N, got %s and %s", coding, alternate);
    }

    public SimCoding(Coding coding, int largePercent, int minLargeBytes, int maxLargeBytes) {
        this(coding, largePercent, minLargeBytes, maxLargeBytes, null);
    }

    /**
     * The same world with the coding-change event between this coding and (N, {@code f}, {@code x}) at the
     * same threshold.
     *
     * @throws IllegalArgumentException naming the RS-Paxos rule (N, f, x) breaks
     */
    public SimCoding withChangesTo(int f, int x) {
        return new SimCoding(coding, largePercent, minLargeBytes, maxLargeBytes, coding.withChange(f, x, coding.thresholdBytes()));
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
                + (coding.defersRebuild() ? "" : " rebuilding")
                + (alternate == null ? "" : " <-> " + alternate.nodes() + "," + alternate.failures() + "," + alternate.dataShards()) : "off";
    }
}
