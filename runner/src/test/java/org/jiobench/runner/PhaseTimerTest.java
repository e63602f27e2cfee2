package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.jiobench.workloads.Approach;
import org.jiobench.workloads.ApproachSettings;
import org.jiobench.workloads.Approaches;
import org.jiobench.workloads.ElementType;
import org.jiobench.workloads.IoMode;
import org.jiobench.workloads.OptionValues;
import org.jiobench.workloads.TransferBuffer;
import org.jiobench.workloads.VerifiedTransfers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One phase timed from the barrier, on a single rank. */
class PhaseTimerTest {
    private static final int SIZE = 4096;
    private static final int TRANSFERS = 4;
    private static final Honesty VERIFYING = new Honesty(false, false, 0, null, false, true);
    /** Calibrate at 1MiB/s: 4 transfers of 4KiB take 16 ms. */
    private static final ApproachSettings SLOW_CALIBRATE =
            new ApproachSettings(new OptionValues(Map.of("calibrate.rate", 1L << 20), Map.of()));
    private final World world = new SoloWorld(new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(new ByteArrayOutputStream()));
    @TempDir
    Path dir;

    private Phase phase(Approach approach, IoMode mode) {
        long[] offsets = new long[TRANSFERS];
        long[] firstElements = new long[TRANSFERS];
        for (int k = 0; k < TRANSFERS; k++) {
            offsets[k] = (long) k * SIZE;
            firstElements[k] = (long) k * SIZE / Integer.BYTES;
        }
        return new Phase(approach, mode, 0, 0, false, dir.resolve("f.dat"), dir.resolve("f.dat"), offsets, firstElements,
                (long) TRANSFERS * SIZE, new VerifiedTransfers(TRANSFERS));
    }

    private static TransferBuffer buffer(Approach approach) {
        return new TransferBuffer(approach.dataForm(), ElementType.INT, SIZE, TRANSFERS, 1, ByteOrder.BIG_ENDIAN);
    }

    @Test
    void theStepsAddUpToThePhaseAndAReadIsVerified() throws IOException {
        Approach approach = Approaches.byId("raw-bytes");
        PhaseTimer timer = new PhaseTimer(new ApproachSettings(OptionValues.DEFAULTS), VERIFYING, Deadline.NONE, world,
                () -> false);
        timer.run(phase(approach, IoMode.WRITE), buffer(approach));
        RankRecord read = timer.run(phase(approach, IoMode.READ), buffer(approach));
        assertEquals((long) TRANSFERS * SIZE, read.bytes());
        assertEquals(read.openSeconds() + read.transferSeconds() + read.closeSeconds(), read.elapsedSeconds(), 1e-9);
        assertTrue(read.verified());
        assertFalse(read.stonewalled());
    }

    @Test
    void aDeadlineStopsThePhaseAndWearOutGoesOnToTheMostAnyRankMoved() throws IOException {
        Approach calibrate = Approaches.byId("calibrate");
        RankRecord stopped = new PhaseTimer(SLOW_CALIBRATE, VERIFYING, new Deadline(0.01, false), world, () -> false)
                .run(phase(calibrate, IoMode.WRITE), buffer(calibrate));
        assertTrue(stopped.stonewalled());
        assertTrue(stopped.bytes() < (long) TRANSFERS * SIZE, "moved " + stopped.bytes());
        assertNull(stopped.verified(), "calibration has no data to verify");

        RankRecord wornOut = new PhaseTimer(SLOW_CALIBRATE, VERIFYING, new Deadline(0.01, true), world, () -> false)
                .run(phase(calibrate, IoMode.WRITE), buffer(calibrate));
        assertTrue(wornOut.stonewalled());
        assertEquals(wornOut.stonewallBytes().longValue(), wornOut.bytes(), "alone, this rank moved the most by the deadline");
    }

    @Test
    void aJvmStoppedInItsFirstTransferRecordsTheStallApartFromTheTransfersPace() throws Exception {
        // Calibrate at 4KiB/s: a transfer of 4KiB takes 1 s, and the deadline falls within the first.
        ApproachSettings slowest = new ApproachSettings(new OptionValues(Map.of("calibrate.rate", 4096L), Map.of()));
        Approach calibrate = Approaches.byId("calibrate");
        long pid = ProcessHandle.current().pid();
        String stopFor1500Ms = "kill -STOP " + pid + "; sleep 1.5; kill -CONT " + pid;
        Process[] stopper = new Process[1];
        // The first look at the stonewall comes as the first transfer begins: the stop falls in it.
        BooleanSupplier stopsThisJvmOnce = () -> {
            if (stopper[0] == null) {
                try {
                    stopper[0] = new ProcessBuilder("sh", "-c", stopFor1500Ms).start();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return false;
        };
        RankRecord record = new PhaseTimer(slowest, VERIFYING, new Deadline(0.3, false), world, stopsThisJvmOnce)
                .run(phase(calibrate, IoMode.WRITE), buffer(calibrate));
        assertEquals(0, stopper[0].waitFor());
        assertTrue(record.stonewalled());
        assertEquals(1, record.transfers(), "the transfer the stop lengthened, then the deadline");
        assertTrue(record.transferSeconds() > 1.5, "the stop is in the transfers' time: " + record);
        assertTrue(record.stalledSeconds() > 1.3 && record.stalledSeconds() <= record.transferSeconds(),
                "stood still for 1.5 s, seen up to a look short: " + record);
    }

    @Test
    void aStopRequestEndsThePhaseBeforeItMovesAnything() throws IOException {
        Approach calibrate = Approaches.byId("calibrate");
        RankRecord record = new PhaseTimer(SLOW_CALIBRATE, VERIFYING, Deadline.NONE, world, () -> true)
                .run(phase(calibrate, IoMode.WRITE), buffer(calibrate));
        assertEquals(0, record.bytes());
        assertTrue(record.stonewalled());
    }
}
