package org.jiobench.bulk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PosixFileTest {

    private static final int LENGTH = 4096;

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("shared.bin");
    }

    /** A buffer whose bytes say which transfer they belong to, so a misplaced block shows. */
    private static ByteBuffer block(int k) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(LENGTH);
        for (int i = 0; i < LENGTH; i++) {
            buffer.put(i, (byte) (k * 31 + i));
        }
        return buffer;
    }

    /** Records the callbacks in order, and can stop the phase or fail at a given step. */
    private static final class Recorder implements TransferCallback {
        final List<String> calls = new ArrayList<>();
        private final String stopAt;
        private final RuntimeException failure;

        Recorder(String stopAt, RuntimeException failure) {
            this.stopAt = stopAt;
            this.failure = failure;
        }

        @Override
        public boolean beforeTransfer(int k) {
            calls.add("before " + k);
            return step("before " + k);
        }

        @Override
        public void afterTransfer(int k) {
            calls.add("after " + k);
            step("after " + k);
        }

        private boolean step(String call) {
            if (call.equals(stopAt)) {
                if (failure != null) {
                    throw failure;
                }
                return false;
            }
            return true;
        }
    }

    @Test
    void writePhaseThenReadPhaseAtScatteredOffsets() throws IOException {
        long[] offsets = {3 * LENGTH, 0, 7 * LENGTH + 5, LENGTH};
        try (PosixFile out = PosixFile.open(file(), true)) {
            for (int k = 0; k < offsets.length; k++) {
                assertEquals(1, out.transfer(true, block(k), LENGTH, new long[] {offsets[k]}, null));
            }
            out.fsync();
        }
        assertEquals(8 * LENGTH + 5, Files.size(file()));

        ByteBuffer read = ByteBuffer.allocateDirect(LENGTH);
        try (PosixFile in = PosixFile.open(file(), false)) {
            for (int k = 0; k < offsets.length; k++) {
                assertEquals(1, in.transfer(false, read, LENGTH, new long[] {offsets[k]}, null));
                assertEquals(block(k), read, "block " + k);
            }
        }
    }

    @Test
    void oneCallRunsAWholePhaseBetweenCallbacks() throws IOException {
        Recorder recorder = new Recorder(null, null);
        try (PosixFile out = PosixFile.open(file(), true)) {
            assertEquals(3, out.transfer(true, block(1), LENGTH, new long[] {0, LENGTH, 2 * LENGTH}, recorder));
        }
        assertEquals(List.of("before 0", "after 0", "before 1", "after 1", "before 2", "after 2"), recorder.calls);
        assertEquals(3 * LENGTH, Files.size(file()));
    }

    @Test
    void beforeTransferCanEndThePhaseEarly() throws IOException {
        Recorder recorder = new Recorder("before 2", null);
        try (PosixFile out = PosixFile.open(file(), true)) {
            assertEquals(2, out.transfer(true, block(1), LENGTH, new long[] {0, LENGTH, 2 * LENGTH, 3 * LENGTH},
                    recorder));
        }
        assertEquals(List.of("before 0", "after 0", "before 1", "after 1", "before 2"), recorder.calls);
        assertEquals(2 * LENGTH, Files.size(file()));
    }

    @Test
    void exceptionsFromTheCallbackComeOutOfTransfer() throws IOException {
        RuntimeException boom = new IllegalStateException("boom");
        try (PosixFile out = PosixFile.open(file(), true)) {
            Recorder before = new Recorder("before 1", boom);
            assertSame(boom, assertThrows(IllegalStateException.class,
                    () -> out.transfer(true, block(1), LENGTH, new long[] {0, LENGTH, 2 * LENGTH}, before)));
            assertEquals(List.of("before 0", "after 0", "before 1"), before.calls);
            assertEquals(LENGTH, Files.size(file()));

            Recorder after = new Recorder("after 0", boom);
            assertSame(boom, assertThrows(IllegalStateException.class,
                    () -> out.transfer(true, block(1), LENGTH, new long[] {LENGTH, 2 * LENGTH}, after)));
            assertEquals(List.of("before 0", "after 0"), after.calls);
            assertEquals(2 * LENGTH, Files.size(file()));
        }
    }

    @Test
    void checkedExceptionsFromTheCallbackComeOutOfTransfer() throws IOException {
        TransferCallback failing = new TransferCallback() {
            @Override
            public boolean beforeTransfer(int k) throws IOException {
                throw new IOException("deadline passed");
            }

            @Override
            public void afterTransfer(int k) {
                throw new UncheckedIOException(new IOException("not reached"));
            }
        };
        try (PosixFile out = PosixFile.open(file(), true)) {
            IOException e = assertThrows(IOException.class,
                    () -> out.transfer(true, block(1), LENGTH, new long[] {0}, failing));
            assertEquals("deadline passed", e.getMessage());
        }
    }

    /** Elements in the machine's order, converted in pieces that end inside an element's neighbour's piece. */
    @Test
    void swappedTransfersWriteTheOtherByteOrderAndReadItBack() throws IOException {
        for (int size : new int[] {2, 4, 8}) {
            ByteBuffer elements = block(size).order(ByteOrder.nativeOrder());
            ByteBuffer piece = ByteBuffer.allocateDirect(3 * size + 1);
            try (PosixFile out = PosixFile.open(file(), true)) {
                assertEquals(2, out.transferSwapped(true, elements, size, piece, LENGTH, new long[] {LENGTH, 0}, null));
            }
            byte[] written = Files.readAllBytes(file());
            assertEquals(2 * LENGTH, written.length);
            for (int i = 0; i < LENGTH; i++) {
                int reversed = i / size * size + size - 1 - i % size;
                assertEquals(elements.get(reversed), written[i], "element size " + size + ", byte " + i);
                assertEquals(elements.get(reversed), written[LENGTH + i]);
            }
            ByteBuffer read = ByteBuffer.allocateDirect(LENGTH);
            try (PosixFile in = PosixFile.open(file(), false)) {
                assertEquals(1, in.transferSwapped(false, read, size, piece, LENGTH, new long[] {LENGTH}, null));
            }
            assertEquals(elements.rewind(), read.rewind(), "element size " + size);
        }
    }

    @Test
    void swappedTransfersCheckTheirElementsAndPiece() throws IOException {
        try (PosixFile out = PosixFile.open(file(), true)) {
            ByteBuffer piece = ByteBuffer.allocateDirect(64);
            assertThrows(IllegalArgumentException.class,
                    () -> out.transferSwapped(true, block(1), 3, piece, LENGTH, new long[] {0}, null));
            assertThrows(IllegalArgumentException.class,
                    () -> out.transferSwapped(true, block(1), 8, piece, LENGTH - 4, new long[] {0}, null));
            assertThrows(IllegalArgumentException.class,
                    () -> out.transferSwapped(true, block(1), 8, ByteBuffer.allocate(64), LENGTH, new long[] {0}, null));
            assertThrows(IllegalArgumentException.class,
                    () -> out.transferSwapped(true, block(1), 8, ByteBuffer.allocateDirect(4), LENGTH, new long[] {0},
                            null));
        }
        assertEquals(0, Files.size(file()), "no transfer is made with a wrong argument");
    }

    /** O_DIRECT with page-aligned buffers; the test directory is on the machine's disk (ext4), which allows it. */
    @Test
    void directIoMovesPageAlignedBuffers() throws IOException {
        ByteBuffer data = AlignedBuffers.pageAligned(LENGTH);
        data.put(0, block(5), 0, LENGTH);
        try (PosixFile out = PosixFile.open(file(), true, true)) {
            out.transfer(true, data, LENGTH, new long[] {LENGTH}, null);
        }
        ByteBuffer read = AlignedBuffers.pageAligned(LENGTH);
        try (PosixFile in = PosixFile.open(file(), false, true)) {
            in.transfer(false, read, LENGTH, new long[] {LENGTH}, null);
        }
        assertEquals(block(5), read);
    }

    @Test
    void readingPastTheEndOfTheFileIsAnEofException() throws IOException {
        Files.write(file(), new byte[LENGTH + 100]);
        try (PosixFile in = PosixFile.open(file(), false)) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(LENGTH);
            EOFException e = assertThrows(EOFException.class,
                    () -> in.transfer(false, buffer, LENGTH, new long[] {0, LENGTH}, null));
            assertEquals(file() + ": end of file after 100 of 4096 bytes at offset 4096", e.getMessage());
        }
    }

    @Test
    void openingForWriteCreatesButNeverTruncates() throws IOException {
        byte[] existing = new byte[3 * LENGTH];
        Arrays.fill(existing, (byte) 7);
        Files.write(file(), existing);
        try (PosixFile out = PosixFile.open(file(), true)) {
            out.transfer(true, block(1), LENGTH, new long[] {LENGTH}, null);
        }
        byte[] after = Files.readAllBytes(file());
        assertEquals(3 * LENGTH, after.length);
        assertEquals(7, after[0]);
        assertEquals(7, after[3 * LENGTH - 1]);

        Path fresh = dir.resolve("fresh.bin");
        PosixFile.open(fresh, true).close();
        assertTrue(Files.exists(fresh));
    }

    @Test
    void openErrorsNameTheCallTheReasonAndTheFile() {
        Path missing = dir.resolve("missing.bin");
        IOException e = assertThrows(IOException.class, () -> PosixFile.open(missing, false));
        assertEquals(missing + ": open: No such file or directory", e.getMessage());
    }

    @Test
    void writingAFileOpenedForReadingFailsWithTheCallsError() throws IOException {
        Files.write(file(), new byte[LENGTH]);
        try (PosixFile in = PosixFile.open(file(), false)) {
            IOException e = assertThrows(IOException.class,
                    () -> in.transfer(true, block(1), LENGTH, new long[] {0}, null));
            assertEquals(file() + ": pwrite: Bad file descriptor", e.getMessage());
        }
    }

    @Test
    void theBuffersPositionAndLimitPlayNoPart() throws IOException {
        ByteBuffer buffer = block(2);
        buffer.position(LENGTH);
        try (PosixFile out = PosixFile.open(file(), true)) {
            out.transfer(true, buffer, LENGTH, new long[] {0}, null);
        }
        assertArrayEquals(bytes(block(2)), Files.readAllBytes(file()));
    }

    @Test
    void zeroLengthTransfersAndEmptyPhasesAreAllowed() throws IOException {
        Recorder recorder = new Recorder(null, null);
        try (PosixFile out = PosixFile.open(file(), true)) {
            assertEquals(2, out.transfer(true, ByteBuffer.allocateDirect(0), 0, new long[] {0, 10}, recorder));
            assertEquals(0, out.transfer(true, block(1), LENGTH, new long[0], recorder));
        }
        assertEquals(4, recorder.calls.size());
        assertEquals(0, Files.size(file()));
    }

    @Test
    void badArgumentsAreRejectedBeforeAnyTransfer() throws IOException {
        Recorder recorder = new Recorder(null, null);
        try (PosixFile out = PosixFile.open(file(), true)) {
            long[] one = {0};
            assertThrows(NullPointerException.class, () -> out.transfer(true, null, 0, one, recorder));
            assertThrows(IllegalArgumentException.class,
                    () -> out.transfer(true, ByteBuffer.allocate(LENGTH), LENGTH, one, recorder));
            assertThrows(IndexOutOfBoundsException.class,
                    () -> out.transfer(true, block(1), LENGTH + 1, one, recorder));
            assertThrows(IndexOutOfBoundsException.class, () -> out.transfer(true, block(1), -1, one, recorder));
            assertThrows(IndexOutOfBoundsException.class,
                    () -> out.transfer(true, block(1), Integer.MAX_VALUE, one, recorder));
            assertThrows(NullPointerException.class, () -> out.transfer(true, block(1), LENGTH, null, recorder));
            assertThrows(IllegalArgumentException.class,
                    () -> out.transfer(true, block(1), LENGTH, new long[] {0, LENGTH, -1}, recorder));
            assertThrows(IllegalArgumentException.class,
                    () -> out.transfer(true, block(1), LENGTH, new long[] {0, Long.MIN_VALUE}, recorder));
            assertThrows(IllegalArgumentException.class,
                    () -> out.transfer(true, block(1), LENGTH, new long[] {0, Long.MAX_VALUE - LENGTH + 1}, recorder));
        }
        assertEquals(List.of(), recorder.calls);
        assertEquals(0, Files.size(file()));
    }

    @Test
    void aClosedFileRejectsEveryCallAndClosesAgainQuietly() throws IOException {
        PosixFile out = PosixFile.open(file(), true);
        out.close();
        out.close();
        IOException e = assertThrows(IOException.class, () -> out.transfer(true, block(1), LENGTH, new long[] {0}, null));
        assertEquals(file() + ": closed", e.getMessage());
        assertThrows(IOException.class, out::fsync);
    }

    @Test
    void nullPathIsRejected() {
        assertThrows(NullPointerException.class, () -> PosixFile.open(null, true));
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.capacity()];
        buffer.get(0, bytes);
        return bytes;
    }
}
