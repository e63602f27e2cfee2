package org.jiobench.bulk;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * How a bulk object moves elements between an array and the bytes of the file or stream: through a
 * temporary byte buffer, the paper's option to recycle that buffer between calls, and, for files,
 * whether to skip that buffer where the JVM allows it.
 *
 * @param chunkBytes the buffer's size bound: an array of more bytes moves in chunks of at most this
 *                   many (at least {@value #MIN_CHUNK_BYTES}, one long or double)
 * @param recycle    whether the buffer is kept for later calls, or made afresh for each call and
 *                   dropped after it
 * @param inPlace    where {@link BulkRandomAccessFile} reads straight into the array (and, when
 *                   the file's byte order is the machine's, writes straight from it), the array
 *                   pinned during each system call; elsewhere it goes through the buffer
 */
public record BufferPolicy(int chunkBytes, boolean recycle, InPlace inPlace) {

    /** Where a file's system calls may run on the pinned array itself. */
    public enum InPlace {
        /** Nowhere: always through the buffer. */
        NEVER,
        /**
         * Where the JVM pins an array without holding up its garbage collector
         * ({@link #jvmPinsWithoutStoppingCollector()}).
         */
        WHERE_COLLECTOR_RUNS,
        /**
         * On every JVM, as the paper's JNI implementation did with GetPrimitiveArrayCritical:
         * where a pin holds up the collector (JDK 17 to 21, collectors other than G1), every other
         * thread that needs a collection waits until each system call returns, so this is for
         * programs whose other threads can wait that long, such as one reading thread per process.
         */
        ALWAYS;

        /** Whether this JVM's system calls run on the pinned array. */
        public boolean here() {
            return this == ALWAYS || this == WHERE_COLLECTOR_RUNS && jvmPinsWithoutStoppingCollector();
        }
    }

    public static final int MIN_CHUNK_BYTES = Long.BYTES;
    /**
     * 1 MiB: on the project's VMs (AMD EPYC, 512 KiB L2 per core) a conversion through a buffer
     * from and into the page cache ran faster with 1 MiB than with 256 KiB for every approach that
     * converts or stages through one, at 1 and 2 ranks, and no slower than with 4 MiB
     * (bench/pieces.sh, whose kept runs docs/modern-java.md's table is drawn from); a read straight into the
     * array runs alike at any of these sizes. Fewer system calls too, which matters where many
     * writers serialise on one file's lock.
     */
    public static final int DEFAULT_CHUNK_BYTES = 1 << 20;

    /**
     * A buffer of up to {@value #DEFAULT_CHUNK_BYTES} bytes, kept between calls, skipped where the
     * JVM pins without holding up its collector.
     */
    public static final BufferPolicy DEFAULT = new BufferPolicy(DEFAULT_CHUNK_BYTES, true, InPlace.WHERE_COLLECTOR_RUNS);

    private static final boolean PINS_WITHOUT_STOPPING_COLLECTOR = Runtime.version().feature() >= 22
            && ManagementFactory.getGarbageCollectorMXBeans().stream()
                    .map(GarbageCollectorMXBean::getName).anyMatch(name -> name.startsWith("G1 "));

    public BufferPolicy {
        if (chunkBytes < MIN_CHUNK_BYTES) {
            throw new IllegalArgumentException("chunkBytes " + chunkBytes + " is less than " + MIN_CHUNK_BYTES);
        }
    }

    /** Always through the buffer. */
    public BufferPolicy(int chunkBytes, boolean recycle) {
        this(chunkBytes, recycle, InPlace.NEVER);
    }

    /**
     * Whether this JVM pins an array for native code without stopping its garbage collector: G1
     * from JDK 22 pins the array's region (JEP 423). Elsewhere a pinned array holds up every
     * collection until it is released, so no system call may run while one is pinned.
     */
    public static boolean jvmPinsWithoutStoppingCollector() {
        return PINS_WITHOUT_STOPPING_COLLECTOR;
    }
}
