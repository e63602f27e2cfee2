package org.jiobench.bulk;

import java.util.Objects;

/**
 * Where a Java array's first element lies within its 4 KiB page, which decides how fast the
 * kernel copies between it and the page cache (docs/jvm-heap.md, bench/copy-alignment.sh). On
 * x86 processors with fast string moves Linux copies with {@code rep movsb}; on AMD EPYC that copy
 * reads at a fifth to two fifths of its pace where the destination lies 1 to 31 bytes past the
 * source modulo 4 KiB, and writes at about two thirds where the source is not on a cache line. A C
 * program's page-aligned buffer is on a cache line; a Java array lies wherever the collector put
 * it (a G1 humongous array, 16 bytes past a page boundary).
 */
public final class ArrayPlacement {
    static {
        NativeLibrary.load();
    }

    static final int PAGE = 4096;
    static final int CACHE_LINE = 64;
    /** A lead of a page's first bytes below this makes the kernel's copy crawl (posix_io.h, SLOW_LEAD). */
    private static final int SLOW_LEAD = 32;

    private ArrayPlacement() {
    }

    /**
     * Bytes from the start of its 4 KiB page to the array's first element, where it lies now
     * (under {@code -Xcheck:jni}, where the JVM hands C a guarded copy of it, the copy's).
     */
    public static int pageOffset(Object array) {
        Objects.requireNonNull(array, "array");
        if (!array.getClass().isArray() || !array.getClass().getComponentType().isPrimitive()) {
            throw new IllegalArgumentException("not a primitive array: " + array.getClass().getName());
        }
        return firstElementPageOffset(array);
    }

    /** Whether an array at this page offset lies as a page-aligned C buffer does for the kernel's copy: on a cache line. */
    public static boolean onCacheLine(int pageOffset) {
        return pageOffset % CACHE_LINE == 0;
    }

    /**
     * Whether the kernel's copy from {@code source} to {@code destination} (a file offset standing
     * for its page-cache side) runs at its slow pace: the destination 1 to 31 bytes past the source.
     */
    public static boolean kernelCopyCrawls(long destination, long source) {
        long lead = Math.floorMod(destination - source, (long) PAGE);
        return lead != 0 && lead < SLOW_LEAD;
    }

    /** Bytes further on a destination must lie for the copy not to crawl (a cache line past the source), 0 where it does not. */
    public static int kernelCopyShift(long destination, long source) {
        return kernelCopyCrawls(destination, source)
                ? CACHE_LINE - (int) Math.floorMod(destination - source, (long) PAGE) : 0;
    }

    private static native int firstElementPageOffset(Object array);
}
