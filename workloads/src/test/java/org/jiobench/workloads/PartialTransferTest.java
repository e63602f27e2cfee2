package org.jiobench.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Transfers that a stonewall ends part way, and the pieces that finish them later (wear-out, a read of what a stonewalled write left). */
class PartialTransferTest {
    private static final int ELEMENTS = 5 * Stonewall.CHECK_INTERVAL;
    private static final long SEED = 7;
    @TempDir
    Path dir;

    /** A stonewall that is reached after it has been asked {@code answersBeforeReached} times. */
    private static Stonewall reachedAfter(int answersBeforeReached) {
        int[] asked = {0};
        return () -> asked[0]++ >= answersBeforeReached;
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("org.jiobench.workloads.ApproachesTest#approachesTypesAndOrders")
    void aTransferMovedInTwoPiecesWritesAndReadsTheSameBytesAsOne(String id, ElementType type, ByteOrder order)
            throws IOException {
        Approach approach = Approaches.byId(id);
        int size = ELEMENTS * type.bytes();
        TransferBuffer buffer = new TransferBuffer(approach.dataForm(), type, size, SEED, order);
        ApproachSettings settings = ApproachesTest.settings(order);
        Path file = dir.resolve(id + ".dat");
        long offset = size;
        long firstElement = 3 * ELEMENTS;
        buffer.prepare(firstElement);
        int split = 2 * Stonewall.CHECK_INTERVAL * type.bytes() + type.bytes();
        try (TransferIo io = approach.open(file, IoMode.WRITE, buffer, settings)) {
            assertEquals(split, io.transfer(offset, 0, split, Stonewall.NONE));
            assertEquals(size, io.transfer(offset, split, size, Stonewall.NONE));
        }
        byte[] expected = new byte[size];
        ExpectedData.bytes(type, firstElement, SEED, order, expected, size);
        byte[] onDisk = Files.readAllBytes(file);
        assertArrayEquals(expected, Arrays.copyOfRange(onDisk, size, 2 * size));

        TransferBuffer reader = new TransferBuffer(approach.dataForm(), type, size, SEED, order);
        try (TransferIo io = approach.open(file, IoMode.READ, reader, settings)) {
            assertEquals(split, io.transfer(offset, 0, split, Stonewall.NONE));
            assertEquals(-1, reader.firstWrongByte(firstElement, split));
            assertEquals(size, io.transfer(offset, split, size, Stonewall.NONE));
        }
        assertEquals(-1, reader.firstWrongByte(firstElement));
    }

    @Test
    void perElementApproachesStopAtTheStonewallWithinATransferAndSayWhere() throws IOException {
        for (String id : new String[] {"data-stream", "buffered-data-stream", "byte-array-stream", "encode-decode"}) {
            Approach approach = Approaches.byId(id);
            int size = ELEMENTS * Integer.BYTES;
            TransferBuffer buffer = new TransferBuffer(approach.dataForm(), ElementType.INT, size, SEED, ByteOrder.BIG_ENDIAN);
            ApproachSettings settings = new ApproachSettings(new OptionValues(Map.of(id + ".buffer-size", 1000L), Map.of()));
            Path file = dir.resolve("stopped-" + id);
            buffer.prepare(0);
            int written;
            try (TransferIo io = approach.open(file, IoMode.WRITE, buffer, settings)) {
                written = io.transfer(0, 0, size, reachedAfter(1));
            }
            assertEquals(2 * Stonewall.CHECK_INTERVAL * Integer.BYTES, written, id + ": two pieces, then the stonewall");
            assertEquals(written, Files.size(file), id + ": what it says it wrote is in the file, no more");
            TransferBuffer reader = new TransferBuffer(approach.dataForm(), ElementType.INT, size, SEED, ByteOrder.BIG_ENDIAN);
            try (TransferIo io = approach.open(file, IoMode.READ, reader, settings)) {
                assertEquals(Stonewall.CHECK_INTERVAL * Integer.BYTES, io.transfer(0, 0, written, reachedAfter(0)), id);
            }
            assertEquals(-1, reader.firstWrongByte(0, Stonewall.CHECK_INTERVAL * Integer.BYTES), id);
        }
    }

    @Test
    void calibrateStopsAtTheStonewallAndCountsWhatItsRateAllowed() throws IOException {
        TransferBuffer buffer = new TransferBuffer(DataForm.NONE, ElementType.INT, 1 << 30, SEED, ByteOrder.BIG_ENDIAN);
        long started = System.nanoTime();
        long stopAt = started + 100_000_000L;
        int moved;
        try (TransferIo io = Approaches.byId("calibrate").open(dir.resolve("none"), IoMode.WRITE, buffer,
                new ApproachSettings(new OptionValues(Map.of(), Map.of("calibrate-rate", 1L << 30))))) {
            moved = io.transfer(0, 0, 1 << 30, () -> System.nanoTime() >= stopAt);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        assertTrue(seconds < 0.5, "a 1 s transfer stopped at 0.1 s, took " + seconds);
        assertTrue(moved > 0 && moved < (1 << 30) / 2, "bytes the rate allows in about 0.1 s: " + moved);
        assertEquals(0, moved % Integer.BYTES);
    }
}
