package org.jiobench.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** Every approach, every type, in one process: the bytes on disk and the values read back. */
class ApproachesTest {
    private static final int TRANSFER = 4096;
    private static final long SEED = 42;
    @TempDir
    Path dir;

    static Stream<Arguments> approachesAndTypes() {
        return Approaches.all().stream()
                .filter(approach -> approach.dataForm() != DataForm.NONE)
                .flatMap(approach -> Stream.of(ElementType.values()).map(type -> Arguments.of(approach.id(), type)));
    }

    /** What DataOutputStream writes for the pattern: the format every approach must produce. */
    private static byte[] reference(ElementType type, long[] firstElements) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        ElementArray elements = type.newArray(TRANSFER / type.bytes());
        for (long first : firstElements) {
            elements.fill(first, SEED);
            elements.writeEach(out, 0, elements.length(), Stonewall.NONE);
        }
        return bytes.toByteArray();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("approachesAndTypes")
    void writesTheDataOutputFormatAndReadsItBack(String id, ElementType type) throws IOException {
        Approach approach = Approaches.byId(id);
        Path file = dir.resolve(id + ".dat");
        BlockPlan plan = new BlockPlan(0, 1, 4 * TRANSFER, TRANSFER, 2, false, TransferOrder.SHUFFLED, SEED);
        long[] offsets = plan.fileOffsets();
        long[] first = plan.firstElements(type);
        TransferBuffer buffer = new TransferBuffer(approach.dataForm(), type, TRANSFER, SEED);
        ApproachSettings settings = new ApproachSettings(1000, 1 << 20);
        try (TransferIo io = approach.open(file, IoMode.WRITE, buffer, settings)) {
            int done = io.transferAll(offsets, 0, offsets.length, TRANSFER, hooks(k -> buffer.prepare(first[k]), k -> { }));
            assertEquals(offsets.length, done);
        }
        long[] sequentialFirst = new BlockPlan(0, 1, 4 * TRANSFER, TRANSFER, 2, false, TransferOrder.SEQUENTIAL, SEED)
                .firstElements(type);
        assertArrayEquals(reference(type, sequentialFirst), Files.readAllBytes(file));

        try (TransferIo io = approach.open(file, IoMode.READ, buffer, settings)) {
            io.transferAll(offsets, 0, offsets.length, TRANSFER,
                    hooks(k -> { }, k -> assertEquals(-1, buffer.firstWrongByte(first[k]))));
        }
    }

    @Test
    void everyApproachMovesATransferThatIsNoWholePage() throws IOException {
        int transfer = 1000;
        for (Approach approach : Approaches.all()) {
            if (approach.dataForm() == DataForm.NONE) continue;
            Path file = dir.resolve("odd-" + approach.id());
            TransferBuffer buffer = new TransferBuffer(approach.dataForm(), ElementType.INT, transfer, SEED);
            ApproachSettings settings = new ApproachSettings(100, 1);
            long[] offsets = {transfer, 0};
            long[] first = {transfer / 4, 0};
            try (TransferIo io = approach.open(file, IoMode.WRITE, buffer, settings)) {
                io.transferAll(offsets, 0, 2, transfer, hooks(k -> buffer.prepare(first[k]), k -> { }));
            }
            assertEquals(2 * transfer, Files.size(file), approach.id());
            try (TransferIo io = approach.open(file, IoMode.READ, buffer, settings)) {
                io.transferAll(offsets, 0, 2, transfer,
                        hooks(k -> { }, k -> assertEquals(-1, buffer.firstWrongByte(first[k]), approach.id())));
            }
        }
    }

    @Test
    void verificationNamesTheFirstWrongByte() throws IOException {
        Path file = dir.resolve("corrupt.dat");
        TransferBuffer written = new TransferBuffer(DataForm.BYTES, ElementType.INT, TRANSFER, SEED);
        written.prepare(0);
        byte[] bytes = written.bytes().clone();
        bytes[1234] ^= 1;
        Files.write(file, bytes);
        assertEquals(1234, FileCheck.firstWrongByte(file, new long[] {0}, new long[] {0}, TRANSFER, ElementType.INT,
                TRANSFER, SEED));
        assertEquals(-1, FileCheck.firstWrongByte(file, new long[] {0}, new long[] {0}, 1232, ElementType.INT,
                TRANSFER, SEED), "a check of the first 1232 bytes does not reach byte 1234");

        TransferBuffer typed = new TransferBuffer(DataForm.TYPED, ElementType.INT, TRANSFER, SEED);
        try (TransferIo io = Approaches.byId("encode-decode").open(file, IoMode.READ, typed, new ApproachSettings(1, 1))) {
            io.transfer(0, 0, TRANSFER, Stonewall.NONE);
        }
        assertEquals(1234, typed.firstWrongByte(0));
        assertEquals(-1, typed.firstWrongByte(0, 1232));
    }

    @Test
    void calibrateTakesItsProgrammedTime() throws IOException {
        TransferBuffer buffer = new TransferBuffer(DataForm.NONE, ElementType.INT, 1 << 20, SEED);
        long started = System.nanoTime();
        try (TransferIo io = Approaches.byId("calibrate").open(dir.resolve("none"), IoMode.WRITE, buffer,
                new ApproachSettings(1, 32L << 20))) {
            io.transferAll(new long[4], 0, 4, 1 << 20, hooks(k -> { }, k -> { }));
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        assertTrue(seconds >= 0.125, "4 x 1MiB at 32MiB/s cannot take less than 0.125 s, took " + seconds);
        assertTrue(Files.notExists(dir.resolve("none")), "calibrate touches no file");
    }

    @Test
    void groupsExpandAndUnknownNamesAreRefused() {
        List<String> paper = Approaches.resolve(List.of("paper")).stream().map(Approach::id).toList();
        assertEquals(List.of("raw-bytes", "encode-decode", "data-stream", "buffered-data-stream", "byte-array-stream",
                "bulk-jni"), paper);
        assertEquals(Approaches.all().size(), Approaches.resolve(List.of("all", "raw-bytes")).size());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> Approaches.resolve(List.of("raw-bytez")));
        assertTrue(unknown.getMessage().contains("unknown approach 'raw-bytez'"));
    }

    interface IoAction {
        void run(int k) throws IOException;
    }

    private static TransferHooks hooks(IoAction before, IoAction after) {
        return new TransferHooks() {
            @Override public boolean beforeTransfer(int k) throws IOException {
                before.run(k);
                return true;
            }

            @Override public void afterTransfer(int k) throws IOException {
                after.run(k);
            }

            @Override public void afterTransfer(int k, int moved) throws IOException {
                after.run(k);
            }

            @Override public boolean reached() {
                return false;
            }
        };
    }
}
