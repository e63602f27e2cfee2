package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.nio.file.Path;
import org.jiobench.workloads.Approaches;
import org.jiobench.workloads.DataForm;
import org.jiobench.workloads.ElementType;
import org.jiobench.workloads.IoMode;
import org.jiobench.workloads.TransferBuffer;
import org.jiobench.workloads.VerifiedTransfers;
import org.junit.jupiter.api.Test;

/** What a read delivered, checked against the pattern. */
class VerifierTest {
    private static final int SIZE = 64;
    private static final long SEED = 7;
    private static final Path FILE = Path.of("f.dat");

    private static Phase phase(IoMode mode) {
        return new Phase(Approaches.byId("raw-bytes"), mode, 0, 0, false, FILE, FILE, new long[] {SIZE, 0},
                new long[] {SIZE / 4, 0}, 2 * SIZE, new VerifiedTransfers(2));
    }

    /** A batch of both transfers as a read of the file that raw-bytes wrote would deliver it. */
    private static TransferBuffer delivered() {
        TransferBuffer buffer = new TransferBuffer(DataForm.BYTES, ElementType.INT, SIZE, 2, SEED, ByteOrder.BIG_ENDIAN);
        buffer.prepare(0, SIZE / 4);
        buffer.prepare(1, 0);
        return buffer;
    }

    @Test
    void rightDataIsVerified() {
        Verifier verifier = new Verifier(phase(IoMode.READ), delivered(), true);
        verifier.check(0, 2 * SIZE);
        assertNull(verifier.error());
        assertTrue(verifier.verified(2 * SIZE));
    }

    @Test
    void theFirstWrongByteIsNamedByItsOffsetInTheFile() {
        TransferBuffer buffer = delivered();
        buffer.bytes()[SIZE + 5] ^= 1;
        Verifier verifier = new Verifier(phase(IoMode.READ), buffer, true);
        verifier.check(0, 2 * SIZE);
        assertEquals(Verification.describe(FILE, 5), verifier.error(), "the second transfer lies at offset 0");
        assertFalse(verifier.verified(2 * SIZE));
    }

    @Test
    void nothingMovedOrUncheckedIsNeitherRightNorWrong() {
        assertNull(new Verifier(phase(IoMode.READ), delivered(), true).verified(0));
        Verifier unasked = new Verifier(phase(IoMode.READ), delivered(), false);
        assertFalse(unasked.checks());
        assertNull(unasked.verified(2 * SIZE));
        assertFalse(new Verifier(phase(IoMode.WRITE), delivered(), true).checks(), "a write's file is checked after it");
    }
}
