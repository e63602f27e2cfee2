package org.jiobench.workloads;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

/**
 * Reads back what a rank wrote, with plain byte-array reads independent of any approach, and
 * compares it with the pattern: the check after a write phase (IOR's -W).
 */
public final class FileCheck {
    private FileCheck() {
    }

    /**
     * @return the file offset of the first byte that differs from the pattern, or -1
     */
    public static long firstWrongByte(Path file, long[] offsets, long[] firstElements, int count,
                                      ElementType type, int transferSize, long seed) throws IOException {
        TransferBuffer buffer = new TransferBuffer(DataForm.BYTES, type, transferSize, seed);
        byte[] bytes = buffer.bytes();
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            for (int k = 0; k < count; k++) {
                raf.seek(offsets[k]);
                raf.readFully(bytes);
                int wrong = buffer.firstWrongByte(firstElements[k]);
                if (wrong >= 0) return offsets[k] + wrong;
            }
        }
        return -1;
    }
}
