package org.jiobench.runner;

import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jiobench.workloads.Approach;
import org.jiobench.workloads.ApproachSettings;
import org.jiobench.workloads.OptionValues;

/** Every per-rank option of a run, validated, in groups that each part of the runner reads on its own. */
record RunSettings(Schedule schedule, Geometry geometry, Elements elements, Deadline deadline, Honesty honesty,
                   Striping striping, Output output, OptionValues approachOptions) {

    ApproachSettings approachSettings() {
        return new ApproachSettings(elements.byteOrder(), honesty.direct(), approachOptions);
    }

    List<Approach> approaches() {
        return schedule.approaches();
    }

    /** The same settings in one JVM for all approaches, where no launcher starts forks. */
    RunSettings withoutForks() {
        return new RunSettings(schedule.withoutForks(), geometry, elements, deadline, honesty, striping, output,
                approachOptions);
    }

    /** The parameters as the run file records them (docs/run-file.md). */
    Map<String, Object> describe() {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("approaches", approaches().stream().map(Approach::id).toList());
        parameters.put("block_size", geometry.blockSize());
        parameters.put("transfer_size", geometry.transferSize());
        parameters.put("segments", geometry.segments());
        parameters.put("file_per_process", geometry.filePerProcess());
        parameters.put("file", geometry.file().toAbsolutePath().toString());
        parameters.put("write", schedule.write());
        parameters.put("read", schedule.read());
        schedule.repetitions().describeInto(parameters);
        parameters.put("warmup", schedule.warmup());
        parameters.put("forks", schedule.forks());
        parameters.put("fsync", honesty.fsync());
        parameters.put("drop_cache", honesty.dropCache());
        parameters.put("deadline_s", deadline.seconds() > 0 ? deadline.seconds() : null);
        parameters.put("wear_out", deadline.wearOut());
        parameters.put("reorder", honesty.reorder());
        parameters.put("reorder_offset", honesty.reorderOffset() > 0 ? honesty.reorderOffset() : null);
        parameters.put("read_block_of", honesty.readBlockOf());
        parameters.put("stripe_count", striping.count() != 0 ? striping.count() : null);
        parameters.put("stripe_size", striping.size() > 0 ? striping.size() : null);
        parameters.put("object_size", striping.objectSize() > 0 ? striping.objectSize() : null);
        parameters.put("stripe_ignore", striping.ignore());
        parameters.put("type", elements.type().id());
        parameters.put("order", geometry.order().id());
        parameters.put("verify", honesty.verify());
        parameters.put("seed", elements.seed());
        parameters.put("keep", output.keep());
        parameters.put("overwrite", output.overwrite());
        parameters.put("results", output.results().toAbsolutePath().toString());
        parameters.put("byte_order", elements.byteOrder() == ByteOrder.BIG_ENDIAN ? "big" : "little");
        parameters.put("direct", honesty.direct());
        parameters.putAll(ApproachOptions.describeRunWide(approaches(), approachSettings()));
        parameters.put("approach_options", ApproachOptions.describe(approaches(), approachSettings()));
        return parameters;
    }
}
