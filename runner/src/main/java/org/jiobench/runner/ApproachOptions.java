package org.jiobench.runner;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jiobench.workloads.Approach;
import org.jiobench.workloads.ApproachOption;
import org.jiobench.workloads.ApproachSettings;
import org.jiobench.workloads.Approaches;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * The approaches' own options on the command line: {@code --ID.NAME}, one help section per
 * approach, each value checked by the option itself. The runner knows none of them by name.
 */
final class ApproachOptions {
    private ApproachOptions() {
    }

    /** Adds every approach's options to the command, each approach's under a heading of its id. */
    static void addTo(CommandSpec spec) {
        for (Approach approach : Approaches.all()) {
            if (approach.options().isEmpty()) continue;
            ArgGroupSpec.Builder group = ArgGroupSpec.builder().exclusive(false).validate(false).multiplicity("0..1")
                    .heading("%n" + approach.id() + " options:%n");
            for (ApproachOption option : approach.options()) {
                group.addArg(OptionSpec.builder(name(approach, option)).type(String.class).paramLabel(option.label())
                        .description(option.description() + " (default: " + option.defaultValue() + ").").build());
            }
            spec.addArgGroup(group.build());
        }
    }

    /** The values given for the chosen approaches' options, by {@code ID.NAME}; a bad one is a ParameterException. */
    static Map<String, Object> values(CommandSpec spec, List<Approach> chosen) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Approach approach : chosen) {
            for (ApproachOption option : approach.options()) {
                OptionSpec given = spec.findOption(name(approach, option));
                String text = given == null ? null : given.getValue();
                if (text == null) continue;
                try {
                    values.put(ApproachSettings.key(approach, option), option.parse(text));
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), name(approach, option) + ": " + e.getMessage());
                }
            }
        }
        return values;
    }

    /** Every option of the run's approaches with the value in force, for the run file: id → name → value. */
    static Map<String, Map<String, Object>> describe(List<Approach> approaches, ApproachSettings settings) {
        Map<String, Map<String, Object>> described = new LinkedHashMap<>();
        for (Approach approach : approaches) {
            if (approach.options().isEmpty()) continue;
            Map<String, Object> options = new LinkedHashMap<>();
            for (ApproachOption option : approach.options()) options.put(option.name(), settings.option(approach, option));
            described.put(approach.id(), options);
        }
        return described;
    }

    private static String name(Approach approach, ApproachOption option) {
        return "--" + ApproachSettings.key(approach, option);
    }
}
