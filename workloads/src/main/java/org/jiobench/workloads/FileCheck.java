package org.jiobench.workloads;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * Reads back what a rank wrote, with plain byte-array reads independent of any approach, and
 * compares it with {@link ExpectedData}: the check after a write phase (IOR's -W).
 */
public final class FileCheck {
    private FileCheck() {
    }

    /**
     * Checks the first {@code bytes} bytes of the rank's sequence of transfers: whole transfers in
     * visiting order, then the part of the next one that a stonewall left. A whole transfer that
     * {@code verified} found right before with the same checksums is not compared again.
     *
     * @return the file offset of the first byte that differs from the pattern, or -1
     */
    public static long firstWrongByte(Path file, long[] offsets, long[] firstElements, long bytes,
                                      ElementType type, ByteOrder order, int transferSize,
                                      long seed, VerifiedTransfers verified) throws IOException {
        byte[] actual = new byte[transferSize];
        byte[] expected = new byte[transferSize];
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            for (int k = 0; (long) k * transferSize < bytes; k++) {
                int end = (int) Math.min(transferSize, bytes - (long) k * transferSize);
                raf.seek(offsets[k]);
                raf.readFully(actual, 0, end);
                long checksum = end == transferSize ? verified.checksum(actual, 0, end) : 0;
                if (verified.known(k, checksum)) continue;
                int wrong = ExpectedData.firstWrongByte(type, firstElements[k], seed, order, actual, 0, expected, end);
                if (wrong >= 0) return offsets[k] + wrong;
                if (checksum != 0) verified.remember(k, checksum);
            }
        }
        return -1;
    }
}
