package org.jiobench.workloads;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * The whole transfers of a plan that one kind of check has already found right in full, each
 * remembered by the CRC-32 and CRC-32C of its bytes. Generating the expected bytes runs at about
 * 1 GiB/s, the checksums at tens: a later check of the same transfer (the next repetition) sums
 * what it got and compares 64 bits, and only a mismatch, or a transfer never checked, generates
 * the pattern and compares byte by byte, which names the first wrong byte. A wrong transfer
 * passes only if both sums happen to agree: once in 2^64.
 */
public final class VerifiedTransfers {
    /** Per transfer of the plan: its two checksums, or 0 while none is known. */
    private final long[] checksums;
    private final CRC32 crc = new CRC32();
    private final CRC32C crcc = new CRC32C();

    public VerifiedTransfers(int transfers) {
        this.checksums = new long[transfers];
    }

    /** The checksums of bytes [from, from + length) of an array. */
    public long checksum(byte[] bytes, int from, int length) {
        crc.reset();
        crcc.reset();
        crc.update(bytes, from, length);
        crcc.update(bytes, from, length);
        return crc.getValue() << 32 | crcc.getValue();
    }

    /** The checksums of a buffer's remaining bytes, which it leaves where they were. */
    public long checksum(ByteBuffer bytes) {
        crc.reset();
        crcc.reset();
        crc.update(bytes.duplicate());
        crcc.update(bytes.duplicate());
        return crc.getValue() << 32 | crcc.getValue();
    }

    /** Whether transfer k was found right in full with these checksums. */
    public boolean known(int k, long checksum) {
        return checksum != 0 && checksums[k] == checksum;
    }

    /** Transfer k, with these checksums, has just been found right byte by byte. */
    public void remember(int k, long checksum) {
        checksums[k] = checksum;
    }
}
