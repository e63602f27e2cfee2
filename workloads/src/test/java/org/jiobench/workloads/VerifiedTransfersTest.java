package org.jiobench.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A transfer found right once is not compared again while it comes back unchanged, and is the moment it does not. */
class VerifiedTransfersTest {
    private static final int TRANSFER = 4096;
    private static final long SEED = 5;
    private static final ByteOrder BIG = ByteOrder.BIG_ENDIAN;
    private static final long[] OFFSETS = {TRANSFER, 0};
    private static final long[] FIRST_ELEMENTS = {0, TRANSFER / Integer.BYTES};
    @TempDir
    Path directory;

    @Test
    void aFileCorruptedAfterItsTransfersWereFoundRightFailsTheNextCheck() throws IOException {
        Path file = directory.resolve("f.dat");
        byte[] content = new byte[2 * TRANSFER];
        byte[] transfer = new byte[TRANSFER];
        for (int k = 0; k < 2; k++) {
            ExpectedData.bytes(ElementType.INT, FIRST_ELEMENTS[k], SEED, BIG, transfer, TRANSFER);
            System.arraycopy(transfer, 0, content, (int) OFFSETS[k], TRANSFER);
        }
        Files.write(file, content);
        VerifiedTransfers verified = new VerifiedTransfers(2);
        for (int check = 0; check < 2; check++) {
            assertEquals(-1, FileCheck.firstWrongByte(file, OFFSETS, FIRST_ELEMENTS, 2L * TRANSFER, ElementType.INT, BIG,
                    TRANSFER, SEED, verified), "check " + check);
        }
        content[100] ^= 0x10;  // in transfer 1, which the file holds first
        Files.write(file, content);
        assertEquals(100, FileCheck.firstWrongByte(file, OFFSETS, FIRST_ELEMENTS, 2L * TRANSFER, ElementType.INT, BIG,
                TRANSFER, SEED, verified));
        content[100] ^= 0x10;
        content[TRANSFER + 7] ^= 1;  // in transfer 0
        Files.write(file, content);
        assertEquals(TRANSFER + 7, FileCheck.firstWrongByte(file, OFFSETS, FIRST_ELEMENTS, 2L * TRANSFER, ElementType.INT,
                BIG, TRANSFER, SEED, verified));
    }

    @ParameterizedTest
    @EnumSource(value = DataForm.class, names = {"BYTES", "DIRECT", "TYPED"})
    void aBufferCorruptedAfterItsTransferWasFoundRightFailsTheNextCheck(DataForm form) {
        TransferBuffer buffer = new TransferBuffer(form, ElementType.INT, TRANSFER, 2, SEED, BIG);
        VerifiedTransfers verified = new VerifiedTransfers(2);
        for (int check = 0; check < 2; check++) {
            buffer.prepare(0, FIRST_ELEMENTS[0]);
            buffer.prepare(1, FIRST_ELEMENTS[1]);
            assertEquals(-1, buffer.firstWrongByte(0, FIRST_ELEMENTS[0], TRANSFER, verified, 0));
            assertEquals(-1, buffer.firstWrongByte(1, FIRST_ELEMENTS[1], TRANSFER, verified, 1));
        }
        // Slot 1 then holds transfer 0's data: right data, in the wrong place.
        buffer.prepare(1, FIRST_ELEMENTS[0]);
        assertEquals(0, buffer.firstWrongByte(1, FIRST_ELEMENTS[1], TRANSFER, verified, 1));
        assertEquals(-1, buffer.firstWrongByte(0, FIRST_ELEMENTS[0], TRANSFER, verified, 0));
    }
}
