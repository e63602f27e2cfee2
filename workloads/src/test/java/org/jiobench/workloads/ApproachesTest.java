package org.jiobench.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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

    /** Every approach that moves data and can run in this JVM, every type, every byte order it writes. */
    static Stream<Arguments> approachesTypesAndOrders() {
        return Approaches.all().stream()
                .filter(approach -> approach.dataForm() != DataForm.NONE && approach.unavailable().isEmpty())
                .flatMap(approach -> Stream.of(ElementType.values()).flatMap(type -> Stream.of(BIG, LITTLE)
                        .filter(order -> order == BIG || approach.writesEitherByteOrder())
                        .map(order -> Arguments.of(approach.id(), type, order))));
    }

    static final ByteOrder BIG = ByteOrder.BIG_ENDIAN;
    static final ByteOrder LITTLE = ByteOrder.LITTLE_ENDIAN;

    /** Settings with small pieces, so that a transfer moves in several. */
    static ApproachSettings settings(ByteOrder order) {
        return new ApproachSettings(order, false, new OptionValues(Map.of("nio-bulk.piece-size", 1000L,
                "c-swap.piece-size", 1000L, "ffm.piece-size", 1000L, "ffm-pread.piece-size", 1000L,
                "bulk-jni.chunk-size", 1000L), Map.of("buffer-size", 1000L, "calibrate-rate", 1L << 30)));
    }

    /**
     * What DataOutputStream writes for the pattern, the format every approach must produce; for
     * little-endian, the same with each element's bytes reversed.
     */
    static byte[] reference(ElementType type, long[] firstElements, int transfer, ByteOrder order)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        ElementArray elements = type.newArray(transfer / type.bytes());
        for (long first : firstElements) {
            elements.fill(0, elements.length(), first, SEED);
            elements.writeEach(out, 0, elements.length(), Stonewall.NONE);
        }
        byte[] file = bytes.toByteArray();
        if (order == LITTLE) {
            for (int at = 0; at < file.length; at += type.bytes()) {
                for (int i = 0, j = type.bytes() - 1; i < j; i++, j--) {
                    byte swap = file[at + i];
                    file[at + i] = file[at + j];
                    file[at + j] = swap;
                }
            }
        }
        return file;
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("approachesTypesAndOrders")
    void writesTheSameBytesAsDataOutputInEitherOrderAndReadsThemBack(String id, ElementType type, ByteOrder order)
            throws IOException {
        Approach approach = Approaches.byId(id);
        Path file = dir.resolve(id + ".dat");
        BlockPlan plan = new BlockPlan(0, 1, 4 * TRANSFER, TRANSFER, 2, false, TransferOrder.SHUFFLED, SEED);
        long[] offsets = plan.fileOffsets();
        long[] first = plan.firstElements(type);
        // Batches of 3: two whole, one of the 2 transfers left.
        TransferBuffer buffer = new TransferBuffer(approach.dataForm(), type, TRANSFER, 3, SEED, order);
        ApproachSettings settings = settings(order);
        try (TransferIo io = approach.open(file, IoMode.WRITE, buffer, settings)) {
            moveAll(io, buffer, offsets, first, true);
        }
        long[] sequentialFirst = new BlockPlan(0, 1, 4 * TRANSFER, TRANSFER, 2, false, TransferOrder.SEQUENTIAL, SEED)
                .firstElements(type);
        assertArrayEquals(reference(type, sequentialFirst, TRANSFER, order), Files.readAllBytes(file));

        try (TransferIo io = approach.open(file, IoMode.READ, buffer, settings)) {
            moveAll(io, buffer, offsets, first, false);
        }
    }

    @Test
    void everyApproachMovesATransferThatIsNoWholePage() throws IOException {
        int transfer = 1000;
        for (Approach approach : Approaches.all()) {
            if (approach.dataForm() == DataForm.NONE || approach.unavailable().isPresent()) continue;
            Path file = dir.resolve("odd-" + approach.id());
            TransferBuffer buffer = new TransferBuffer(approach.dataForm(), ElementType.INT, transfer, 2, SEED, BIG);
            ApproachSettings settings = new ApproachSettings(new OptionValues(Map.of(), Map.of("buffer-size", 100L)));
            long[] offsets = {transfer, 0};
            long[] first = {transfer / 4, 0};
            try (TransferIo io = approach.open(file, IoMode.WRITE, buffer, settings)) {
                moveAll(io, buffer, offsets, first, true);
            }
            assertEquals(2 * transfer, Files.size(file), approach.id());
            try (TransferIo io = approach.open(file, IoMode.READ, buffer, settings)) {
                moveAll(io, buffer, offsets, first, false);
            }
        }
    }

    @Test
    void verificationNamesTheFirstWrongByte() throws IOException {
        Path file = dir.resolve("corrupt.dat");
        TransferBuffer written = new TransferBuffer(DataForm.BYTES, ElementType.INT, TRANSFER, SEED, BIG);
        written.prepare(0);
        byte[] bytes = written.bytes().clone();
        bytes[1234] ^= 1;
        Files.write(file, bytes);
        assertEquals(1234, FileCheck.firstWrongByte(file, new long[] {0}, new long[] {0}, TRANSFER, ElementType.INT,
                BIG, TRANSFER, SEED, new VerifiedTransfers(1)));
        assertEquals(-1, FileCheck.firstWrongByte(file, new long[] {0}, new long[] {0}, 1232, ElementType.INT,
                BIG, TRANSFER, SEED, new VerifiedTransfers(1)), "a check of the first 1232 bytes does not reach byte 1234");
        assertEquals(0, FileCheck.firstWrongByte(file, new long[] {0}, new long[] {0}, TRANSFER, ElementType.INT,
                LITTLE, TRANSFER, SEED, new VerifiedTransfers(1)), "a big-endian file is not the little-endian one");

        TransferBuffer typed = new TransferBuffer(DataForm.TYPED, ElementType.INT, TRANSFER, SEED, BIG);
        try (TransferIo io = Approaches.byId("encode-decode").open(file, IoMode.READ, typed, new ApproachSettings(OptionValues.DEFAULTS))) {
            io.transfer(0, 0, TRANSFER, Stonewall.NONE);
        }
        assertEquals(1234, typed.firstWrongByte(0));
        assertEquals(-1, typed.firstWrongByte(0, 1232));
    }

    @Test
    void calibrateTakesItsProgrammedTime() throws IOException {
        TransferBuffer buffer = new TransferBuffer(DataForm.NONE, ElementType.INT, 1 << 20, SEED, BIG);
        long started = System.nanoTime();
        try (TransferIo io = Approaches.byId("calibrate").open(dir.resolve("none"), IoMode.WRITE, buffer,
                new ApproachSettings(new OptionValues(Map.of("calibrate.rate", 32L << 20), Map.of())))) {
            assertEquals(4 << 20, io.transferBatch(new long[4], 0, 4, 1 << 20, Stonewall.NONE));
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        assertTrue(seconds >= 0.125, "4 x 1MiB at 32MiB/s cannot take less than 0.125 s, took " + seconds);
        assertTrue(Files.notExists(dir.resolve("none")), "calibrate touches no file");
    }

    @Test
    void anApproachDeclaresWhetherItRunsItsOwnBatches() throws Exception {
        for (Approach approach : Approaches.all()) {
            if (approach.unavailable().isPresent()) continue;
            TransferBuffer buffer = new TransferBuffer(approach.dataForm(), ElementType.INT, TRANSFER, SEED, BIG);
            try (TransferIo io = approach.open(dir.resolve("batches-" + approach.id()), IoMode.WRITE, buffer,
                    settings(BIG))) {
                Class<?> loop = io.getClass().getMethod("transferBatch", long[].class, int.class, int.class, int.class,
                        Stonewall.class).getDeclaringClass();
                assertEquals(loop != TransferIo.class, approach.runsItsOwnBatches(), approach.id());
            }
        }
    }

    @Test
    void groupsExpandAndUnknownNamesAreRefused() {
        List<String> paper = Approaches.resolve(List.of("paper")).stream().map(Approach::id).toList();
        assertEquals(List.of("raw-bytes", "encode-decode", "data-stream", "buffered-data-stream", "byte-array-stream",
                "bulk-jni"), paper);
        assertEquals(Approaches.all().stream().filter(approach -> approach.unavailable().isEmpty()).count(),
                Approaches.resolve(List.of("all", "raw-bytes")).size());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> Approaches.resolve(List.of("raw-bytez")));
        assertTrue(unknown.getMessage().contains("unknown approach 'raw-bytez'"));
    }

    /** Mappings of at most 3 transfers, so the 8 transfers of a run take three; and offsets past 2 GiB. */
    @Test
    void mmapSplitsARegionLongerThanOneMappingAndReachesBeyondTwoGiB() throws IOException {
        Approach mmap = new Mmap(3 * TRANSFER);
        Path file = dir.resolve("sparse.dat");
        long base = 3L << 30;
        long[] offsets = new long[8];
        long[] first = new long[8];
        for (int k = 0; k < 8; k++) {
            offsets[k] = base + (long) k * TRANSFER;
            first[k] = (long) k * TRANSFER / 4;
        }
        TransferBuffer buffer = new TransferBuffer(DataForm.TYPED, ElementType.INT, TRANSFER, 8, SEED, LITTLE);
        try (TransferIo io = mmap.open(file, IoMode.WRITE, buffer, settings(LITTLE))) {
            moveAll(io, buffer, offsets, first, true);
        }
        assertEquals(base + 8 * TRANSFER, Files.size(file));
        try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(file.toFile(), "r")) {
            byte[] region = new byte[8 * TRANSFER];
            raf.seek(base);
            raf.readFully(region);
            assertArrayEquals(reference(ElementType.INT, new long[] {0, 1024, 2048, 3072, 4096, 5120, 6144, 7168},
                    TRANSFER, LITTLE), region);
        }
        TransferBuffer reader = new TransferBuffer(DataForm.TYPED, ElementType.INT, TRANSFER, 8, SEED, LITTLE);
        try (TransferIo io = mmap.open(file, IoMode.READ, reader, settings(LITTLE))) {
            moveAll(io, reader, offsets, first, false);
        }
    }

    @Test
    void ffmRunsExactlyWhereTheJvmHasTheForeignMemoryApi() {
        Approach ffm = Approaches.byId("ffm");
        if (Runtime.version().feature() >= 22) {
            assertEquals(java.util.Optional.empty(), ffm.unavailable(), "a JDK 22+ build compiles ffm");
        } else {
            assertTrue(ffm.unavailable().orElseThrow().contains("needs a JDK 22 or newer"), ffm.unavailable().toString());
            assertTrue(Approaches.resolve(List.of("all", "modern")).stream().noneMatch(a -> a.id().equals("ffm")),
                    "groups hold only what this JVM runs");
        }
    }

    /** Moves the transfers a batch of the buffer's slots at a time, as the runner does: filled before a write, checked after a read. */
    static void moveAll(TransferIo io, TransferBuffer buffer, long[] offsets, long[] first, boolean write)
            throws IOException {
        int size = buffer.size();
        for (int k = 0; k < offsets.length; k += buffer.slots()) {
            int end = Math.min(offsets.length, k + buffer.slots());
            for (int j = k; write && j < end; j++) buffer.prepare(j - k, first[j]);
            assertEquals((end - k) * size, io.transferBatch(offsets, k, end, size, Stonewall.NONE));
            for (int j = k; !write && j < end; j++) {
                assertEquals(-1, buffer.firstWrongByte(j - k, first[j], size), "transfer " + j);
            }
        }
    }
}
