package org.jiobench.workloads;

/**
 * The deterministic content of the file: element g (its global index) holds bits derived from
 * g and the seed alone, so any reader can verify any block without knowing who wrote it.
 * A splitmix64 finalizer: cheap, and neighbouring elements differ in every byte, so a misplaced
 * or shifted block cannot pass verification.
 */
public final class Pattern {
    private Pattern() {
    }

    public static long bits(long globalIndex, long seed) {
        long z = globalIndex * 0x9E3779B97F4A7C15L + seed;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Clearing the top exponent bit keeps every value finite: no NaN whose bits could be canonicalized. */
    public static float floatValue(long globalIndex, long seed) {
        return Float.intBitsToFloat((int) bits(globalIndex, seed) & 0xBFFF_FFFF);
    }

    public static double doubleValue(long globalIndex, long seed) {
        return Double.longBitsToDouble(bits(globalIndex, seed) & 0xBFFF_FFFF_FFFF_FFFFL);
    }
}
