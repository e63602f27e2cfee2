package org.jiobench.bulk;

/**
 * How a bulk object keeps the temporary byte buffer in which array elements become the bytes of the
 * file or stream: the paper's option to recycle that buffer between calls.
 *
 * @param chunkBytes the buffer's size bound: an array of more bytes moves in chunks of at most this
 *                   many (at least {@value #MIN_CHUNK_BYTES}, one long or double)
 * @param recycle    whether the buffer is kept for later calls, or made afresh for each call and
 *                   dropped after it
 */
public record BufferPolicy(int chunkBytes, boolean recycle) {

    public static final int MIN_CHUNK_BYTES = Long.BYTES;
    /**
     * 64 KiB: measured on the project's VMs (AMD EPYC, 512 KiB L2 per core), BulkRandomAccessFile
     * reads from the page cache ran at about 18000 MiB/s with chunks of 32 or 64 KiB, and at 5500 to
     * 7600 MiB/s with chunks of 128 KiB to 1 MiB; writes ran at about 15000 MiB/s with any of them.
     * With the bounce buffer page-aligned (AlignedBuffers), 64 KiB still read fastest through the
     * runner: about 6000 MiB/s against 5200 at 1 MiB and 4700 at 4 MiB.
     */
    public static final int DEFAULT_CHUNK_BYTES = 1 << 16;

    /** A buffer of up to {@value #DEFAULT_CHUNK_BYTES} bytes, kept between calls. */
    public static final BufferPolicy DEFAULT = new BufferPolicy(DEFAULT_CHUNK_BYTES, true);

    public BufferPolicy {
        if (chunkBytes < MIN_CHUNK_BYTES) {
            throw new IllegalArgumentException("chunkBytes " + chunkBytes + " is less than " + MIN_CHUNK_BYTES);
        }
    }
}
