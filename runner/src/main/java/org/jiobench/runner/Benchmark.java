package org.jiobench.runner;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jiobench.bulk.PageCache;
import org.jiobench.workloads.Approach;
import org.jiobench.workloads.BlockPlan;
import org.jiobench.workloads.DataForm;
import org.jiobench.workloads.FileCheck;
import org.jiobench.workloads.IoMode;
import org.jiobench.workloads.TransferBuffer;
import org.jiobench.workloads.VerifiedTransfers;

/**
 * What one JVM of a rank runs: the approaches of its task, warm-up repetitions first, and in each
 * repetition a write phase then a read phase per approach, each behind a barrier, each reported
 * to the world as it ends.
 */
final class Benchmark {
    private final RunSettings settings;
    private final World world;
    private final Task task;
    private final Targets targets;
    private final BlockPlan writePlan;
    private final BlockPlan readPlan;
    /** Built once the launcher has accepted the plan's memory: for tiny transfers they are most of it. */
    private Transfers transfers;
    /** What verification found right in the file after writes, and in each approach's buffer after reads. */
    private VerifiedTransfers verifiedFile;
    private final Map<Approach, VerifiedTransfers> verifiedReads = new LinkedHashMap<>();
    /** Bytes of the rank's whole plan: every transfer of every segment. */
    private final long planBytes;
    /** Bytes all ranks' writes need on the file system. */
    private final long extentWritten;
    private final PhaseTimer timer;
    private String firstFailure;
    /** With --drop-cache on ceph-fuse: the client's own cache, which the page cache calls do not reach. */
    private CephFuseCache clientCache;

    Benchmark(RunSettings requested, World world) throws UsageError {
        this.settings = world.launched() ? requested : requested.withoutForks();
        this.world = world;
        this.task = world.task().resolvedFor(settings);
        MemoryNeeds.check(settings, task.approaches(settings), Runtime.getRuntime().maxMemory(),
                world.ranksInThisJvm());
        this.targets = new Targets(settings, world.rank(), task.created());
        Geometry geometry = settings.geometry();
        this.writePlan = new BlockPlan(world.rank(), world.size(), geometry.blockSize(), geometry.transferSize(),
                geometry.segments(), geometry.filePerProcess(), geometry.order(), settings.elements().seed());
        Honesty honesty = settings.honesty();
        this.readPlan = honesty.reorder() ? writePlan.forRank(honesty.readBlockOf().get(world.rank())) : writePlan;
        this.planBytes = (long) writePlan.transferCount() * geometry.transferSize();
        this.extentWritten = writePlan.fileExtent() * (geometry.filePerProcess() ? world.size() : 1);
        this.timer = new PhaseTimer(settings.approachSettings(), settings.honesty(), settings.deadline(), world,
                StopRequest::requested);
    }

    /** @return the exit code: 0, 1 when verification failed, 2 when the run could not start */
    int run() throws UsageError, IOException {
        Path read = targets.fileOf(readPlan.rank());
        Path directory = read.toAbsolutePath().getParent();
        String filesystemType = Environment.filesystemType(directory);
        if (task.first()) {
            settings.honesty().checkReorderHonest(filesystemType, directory);
            if (settings.honesty().direct()) DirectIo.check(settings, read);
        }
        if (settings.honesty().dropCache() && settings.schedule().read()) {
            clientCache = CephFuseCache.serving(filesystemType, directory);
        }
        Map<Path, FileIdentity> created = task.first()
                ? targets.prepare(readPlan.rank(), readPlan.fileExtent(), extentWritten)
                : Map.of();
        try {
            world.created(created);
            return run(created);
        } finally {
            if (!world.launched()) targets.remove(created);
        }
    }

    private int run(Map<Path, FileIdentity> created) throws IOException {
        Geometry geometry = settings.geometry();
        Elements elements = settings.elements();
        Map<String, Object> environment = Environment.describe(geometry.file(),
                geometry.transferSize() * geometry.batchSlots());
        environment.put(Wire.PLAN_MEMORY_BYTES, MemoryNeeds.bytes(settings, task.approaches(settings)));
        // A later JVM's files were all there when it started: a replaced one ends it before it is ready.
        if (!task.first()) targets.hold(readPlan.rank());
        if (!world.ready(settings.describe(), environment, created)) return ExitCode.MISTAKE.code;
        transfers = new Transfers(writePlan.fileOffsets(), writePlan.firstElements(elements.type()),
                readPlan.fileOffsets(), readPlan.firstElements(elements.type()));
        verifiedFile = new VerifiedTransfers(settings.honesty().verify() ? writePlan.transferCount() : 0);
        targets.hold(readPlan.rank());
        Map<Approach, TransferBuffer> buffers = new LinkedHashMap<>();
        for (Approach approach : task.approaches(settings)) {
            buffers.put(approach, new TransferBuffer(approach.dataForm(), elements.type(),
                    (int) geometry.transferSize(), geometry.batchSlots(), elements.seed(), elements.byteOrder()));
            verifiedReads.put(approach, new VerifiedTransfers(settings.honesty().verify() ? readPlan.transferCount() : 0));
        }
        // Repetitions outermost, as IOR does: a slow spell of a shared machine then touches every
        // approach of this JVM alike instead of all repetitions of one.
        List<Approach> running = new ArrayList<>(buffers.keySet());
        for (int rep = 0; !running.isEmpty(); rep++) {
            boolean warmup = rep < settings.schedule().warmup();
            for (Approach approach : running) {
                TransferBuffer buffer = buffers.get(approach);
                long readable = planBytes;
                if (settings.schedule().write()) {
                    readable = Math.min(readable, write(approach, rep, warmup, buffer));
                }
                if (settings.schedule().read()) read(approach, rep, warmup, buffer, readable);
            }
            if (!warmup) running = stillRunning(running, rep + 1 - settings.schedule().warmup());
        }
        world.finish((firstFailure == null ? ExitCode.DONE : ExitCode.FAILED).code, firstFailure);
        return firstFailure == null ? 0 : 1;
    }

    /** The approaches that run another measured repetition after {@code measured} of them in this fork. */
    private List<Approach> stillRunning(List<Approach> running, int measured) throws IOException {
        Repetitions repetitions = settings.schedule().repetitions();
        if (!repetitions.automatic()) return repetitions.countAllows(measured) ? running : List.of();
        List<String> going = world.anotherRepetition(task.fork(), running.stream().map(Approach::id).toList());
        return running.stream().filter(approach -> going.contains(approach.id())).toList();
    }

    /** @return the bytes written to the block this rank reads next */
    private long write(Approach approach, int rep, boolean warmup, TransferBuffer buffer) throws IOException {
        Path file = targets.ownFile();
        Phase phase = new Phase(approach, IoMode.WRITE, task.fork(), rep, warmup, file, targets.opened(file),
                transfers.writeOffsets(), transfers.writeFirstElements(), planBytes, verifiedFile);
        RankRecord record = timed(phase, buffer);
        if (settings.honesty().verify() && approach.dataForm() != DataForm.NONE && record.bytes() > 0) {
            Elements elements = settings.elements();
            long wrong = FileCheck.firstWrongByte(phase.opened(), transfers.writeOffsets(), transfers.writeFirstElements(),
                    record.bytes(), elements.type(), elements.byteOrder(), (int) settings.geometry().transferSize(),
                    elements.seed(), phase.verified());
            String error = wrong < 0 ? null : Verification.describe(file, wrong);
            record = record.checked(error);
        }
        return report(phase, record);
    }

    private void read(Approach approach, int rep, boolean warmup, TransferBuffer buffer, long readable)
            throws IOException {
        Path file = targets.fileOf(readPlan.rank());
        Phase phase = new Phase(approach, IoMode.READ, task.fork(), rep, warmup, file, targets.opened(file),
                transfers.readOffsets(), transfers.readFirstElements(), readable, verifiedReads.get(approach));
        if (settings.honesty().reorder() && approach.dataForm() != DataForm.NONE) {
            Targets.awaitSize(phase.opened(), furthestRead(readable));
        }
        if (settings.honesty().dropCache() && approach.dataForm() != DataForm.NONE) {
            if (clientCache != null) {
                clientCache.empty(phase.opened());
            } else {
                PageCache.drop(phase.opened());
            }
        }
        report(phase, timed(phase, buffer));
    }

    /** The end of the furthest transfer of the first {@code readable} bytes of this rank's read. */
    private long furthestRead(long readable) {
        long transferSize = settings.geometry().transferSize();
        long[] offsets = transfers.readOffsets();
        long end = 0;
        for (int i = 0; i < Math.min(offsets.length, readable / transferSize); i++) {
            end = Math.max(end, offsets[i] + transferSize);
        }
        return end;
    }

    private RankRecord timed(Phase phase, TransferBuffer buffer) throws IOException {
        targets.checkUnchanged(phase.label());
        world.barrier(phase.label());
        try {
            return timer.run(phase, buffer);
        } catch (IOException e) {
            String cause = e.getClass() == IOException.class ? e.getMessage() : e.getClass().getSimpleName() + ": "
                    + e.getMessage();
            throw new IOException(phase.label() + ": " + namingTheFileOnce(phase, cause), e);
        }
    }

    /**
     * What went wrong in a phase, naming its file once, by the run's name for it: the native
     * library's errors and NIO's name the file they were handed (the name the approach opened it
     * by), the stream classes' do not.
     */
    static String namingTheFileOnce(Phase phase, String cause) {
        String file = phase.file().toString();
        String said = String.valueOf(cause).replace(phase.opened().toString(), file);
        return said.contains(file) ? said : file + ": " + said;
    }

    private long report(Phase phase, RankRecord record) throws IOException {
        if (record.error() != null && firstFailure == null) {
            firstFailure = "verification failed on rank " + world.rank() + ", " + phase.label() + ": " + record.error();
        }
        return world.endPhase(record, readPlan.rank());
    }

    /** Where each transfer of the rank's write and read plans goes, and the element it starts with. */
    private record Transfers(long[] writeOffsets, long[] writeFirstElements, long[] readOffsets,
                             long[] readFirstElements) {
    }
}
