package org.jiobench.runner;

import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jiobench.workloads.Approach;
import org.jiobench.workloads.ApproachSettings;
import org.jiobench.workloads.DataForm;
import org.jiobench.workloads.ElementType;
import org.jiobench.workloads.TransferBuffer;
import org.jiobench.workloads.TransferOrder;

/** Every per-rank option of a run, validated: one immutable value the whole run reads. */
record RunSettings(
        List<Approach> approaches,
        long blockSize,
        long transferSize,
        int segments,
        boolean filePerProcess,
        Path file,
        boolean write,
        boolean read,
        Repetitions repetitions,
        int warmup,
        int forks,
        boolean fsync,
        boolean dropCache,
        double deadlineSeconds,
        boolean wearOut,
        boolean reorder,
        int reorderOffset,
        Striping striping,
        ElementType type,
        int bufferSize,
        TransferOrder order,
        boolean verify,
        long seed,
        boolean keep,
        boolean overwrite,
        Path results,
        long calibrateRate,
        ByteOrder byteOrder,
        boolean direct,
        Map<String, Object> approachOptions) {

    ApproachSettings approachSettings() {
        return new ApproachSettings(bufferSize, calibrateRate, byteOrder, direct, approachOptions);
    }

    /** The same settings in one JVM for all approaches, where no launcher starts forks. */
    RunSettings withoutForks() {
        return new RunSettings(approaches, blockSize, transferSize, segments, filePerProcess, file, write, read,
                repetitions, warmup, 0, fsync, dropCache, deadlineSeconds, wearOut, reorder, reorderOffset, striping,
                type, bufferSize, order, verify, seed, keep, overwrite, results, calibrateRate, byteOrder, direct,
                approachOptions);
    }

    /** Transfers the rank's array holds at once: a batch of small ones, prepared and checked together. */
    int batchSlots() {
        return TransferBuffer.batchSlots(transferSize, (int) (segments * (blockSize / transferSize)));
    }

    /** Calibration alone touches no file, so a run of it alone needs none. */
    boolean touchesFiles() {
        return approaches.stream().anyMatch(approach -> approach.dataForm() != DataForm.NONE);
    }

    /** The parameters as the run file records them (docs/run-file.md). */
    Map<String, Object> describe() {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("approaches", approaches.stream().map(Approach::id).toList());
        parameters.put("block_size", blockSize);
        parameters.put("transfer_size", transferSize);
        parameters.put("segments", segments);
        parameters.put("file_per_process", filePerProcess);
        parameters.put("file", file.toAbsolutePath().toString());
        parameters.put("write", write);
        parameters.put("read", read);
        repetitions.describeInto(parameters);
        parameters.put("warmup", warmup);
        parameters.put("forks", forks);
        parameters.put("fsync", fsync);
        parameters.put("drop_cache", dropCache);
        parameters.put("deadline_s", deadlineSeconds > 0 ? deadlineSeconds : null);
        parameters.put("wear_out", wearOut);
        parameters.put("reorder", reorder);
        parameters.put("reorder_offset", reorderOffset > 0 ? reorderOffset : null);
        parameters.put("stripe_count", striping.count() != 0 ? striping.count() : null);
        parameters.put("stripe_size", striping.size() > 0 ? striping.size() : null);
        parameters.put("stripe_ignore", striping.ignore());
        parameters.put("type", type.id());
        parameters.put("buffer_size", bufferSize);
        parameters.put("order", order.id());
        parameters.put("verify", verify);
        parameters.put("seed", seed);
        parameters.put("keep", keep);
        parameters.put("overwrite", overwrite);
        parameters.put("results", results.toAbsolutePath().toString());
        parameters.put("calibrate_rate", calibrateRate);
        parameters.put("byte_order", byteOrder == ByteOrder.BIG_ENDIAN ? "big" : "little");
        parameters.put("direct", direct);
        parameters.put("approach_options", ApproachOptions.describe(approaches, approachSettings()));
        return parameters;
    }
}
