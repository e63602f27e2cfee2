package org.jiobench.runner;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jiobench.bulk.PageCache;
import org.jiobench.workloads.Approach;
import org.jiobench.workloads.BlockPlan;
import org.jiobench.workloads.DataForm;
import org.jiobench.workloads.FileCheck;
import org.jiobench.workloads.IoMode;
import org.jiobench.workloads.TransferBuffer;

/**
 * The run of one rank: for each repetition and approach, a write phase then a read phase, each
 * behind a barrier, each reported to the world as it ends.
 */
final class Benchmark {
    private final RunSettings settings;
    private final World world;
    private final Targets targets;
    private final BlockPlan readPlan;
    private final long[] writeOffsets;
    private final long[] writeFirstElements;
    private final long[] readOffsets;
    private final long[] readFirstElements;
    private final PhaseTimer timer;
    private String firstFailure;

    Benchmark(RunSettings settings, World world) {
        this.settings = settings;
        this.world = world;
        this.targets = new Targets(settings, world.rank());
        BlockPlan writePlan = new BlockPlan(world.rank(), world.size(), settings.blockSize(), settings.transferSize(),
                settings.segments(), settings.filePerProcess(), settings.order(), settings.seed());
        this.readPlan = settings.reorder()
                ? writePlan.forRank((world.rank() + world.reorderShift()) % world.size())
                : writePlan;
        this.writeOffsets = writePlan.fileOffsets();
        this.writeFirstElements = writePlan.firstElements(settings.type());
        this.readOffsets = readPlan.fileOffsets();
        this.readFirstElements = readPlan.firstElements(settings.type());
        this.timer = new PhaseTimer(settings.approachSettings(), settings.fsync(), settings.verify(),
                settings.deadlineSeconds());
    }

    /** @return the exit code: 0, 1 when verification failed, 2 when the run could not start */
    int run() throws UsageError, IOException {
        targets.check(readPlan.rank(), readPlan.fileExtent());
        if (!world.ready(settings.describe(), Environment.describe(settings.file()))) return 2;
        Map<Approach, TransferBuffer> buffers = new LinkedHashMap<>();
        for (Approach approach : settings.approaches()) {
            buffers.put(approach, new TransferBuffer(approach.dataForm(), settings.type(),
                    (int) settings.transferSize(), settings.seed()));
        }
        // Repetitions outermost, as IOR does: a slow spell of a shared machine then touches every
        // approach alike instead of all repetitions of one.
        for (int rep = 0; rep < settings.repetitions(); rep++) {
            for (Map.Entry<Approach, TransferBuffer> entry : buffers.entrySet()) {
                int readable = readPlan.transferCount();
                if (settings.write()) readable = Math.min(readable, write(entry.getKey(), rep, entry.getValue()));
                if (settings.read()) read(entry.getKey(), rep, entry.getValue(), readable);
            }
        }
        targets.removeCreated();
        world.finish(firstFailure == null ? 0 : 1, firstFailure);
        return firstFailure == null ? 0 : 1;
    }

    /** @return how many transfers every rank completed */
    private int write(Approach approach, int rep, TransferBuffer buffer) throws IOException {
        Path file = targets.ownFile();
        Phase phase = new Phase(approach, IoMode.WRITE, rep, file, writeOffsets, writeFirstElements);
        RankRecord record = timed(phase, buffer);
        if (settings.verify() && approach.dataForm() != DataForm.NONE) {
            long wrong = FileCheck.firstWrongByte(file, writeOffsets, writeFirstElements, record.transfers(),
                    settings.type(), (int) settings.transferSize(), settings.seed());
            String error = wrong < 0 ? null : Verification.describe(file, wrong);
            record = record.checked(error);
        }
        return report(phase, record);
    }

    private void read(Approach approach, int rep, TransferBuffer buffer, int readable) throws IOException {
        Phase phase = new Phase(approach, IoMode.READ, rep, targets.fileOf(readPlan.rank()),
                Arrays.copyOf(readOffsets, readable), Arrays.copyOf(readFirstElements, readable));
        if (settings.dropCache() && approach.dataForm() != DataForm.NONE) PageCache.drop(phase.file());
        report(phase, timed(phase, buffer));
    }

    private RankRecord timed(Phase phase, TransferBuffer buffer) throws IOException {
        world.barrier();
        try {
            return timer.run(phase, buffer, world.rank());
        } catch (IOException e) {
            throw new IOException(phase.label() + " on " + phase.file() + ": " + e, e);
        }
    }

    private int report(Phase phase, RankRecord record) throws IOException {
        if (record.error() != null && firstFailure == null) {
            firstFailure = "verification failed on rank " + world.rank() + ", " + phase.label() + ": " + record.error();
        }
        return world.endPhase(record);
    }
}
