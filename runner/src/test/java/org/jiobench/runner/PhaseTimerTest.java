package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Map;
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
        return new Phase(approach, mode, 0, 0, false, dir.resolve("f.dat"), offsets, firstElements,
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
    void aStopRequestEndsThePhaseBeforeItMovesAnything() throws IOException {
        Approach calibrate = Approaches.byId("calibrate");
        RankRecord record = new PhaseTimer(SLOW_CALIBRATE, VERIFYING, Deadline.NONE, world, () -> true)
                .run(phase(calibrate, IoMode.WRITE), buffer(calibrate));
        assertEquals(0, record.bytes());
        assertTrue(record.stonewalled());
    }
}
