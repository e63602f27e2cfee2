package org.jiobench.runner;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jiobench.workloads.Approach;
import org.jiobench.workloads.ApproachOption;
import org.jiobench.workloads.ApproachSettings;
import org.jiobench.workloads.Approaches;
import org.jiobench.workloads.OptionValues;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * The approaches' own options on the command line: {@code --ID.NAME}, one help section per
 * approach, each value checked by the option itself; an option that was once the whole run's
 * also keeps its old {@code --NAME}, which sets it for every approach that has it. The runner
 * knows none of them by name.
 */
final class ApproachOptions {
    private ApproachOptions() {
    }

    /** Adds every approach's options to the command, each approach's under a heading of its id. */
    static void addTo(CommandSpec spec) {
        for (ApproachOption option : runWideOptions()) {
            spec.addOption(OptionSpec.builder("--" + option.runWideName()).type(String.class)
                    .paramLabel(option.label()).description("Sets " + String.join(", ", spellingsOf(option))
                            + " at once (default: " + option.defaultValue() + ").").build());
        }
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

    /**
     * The values given for the chosen approaches' options, by {@code ID.NAME}, and for every
     * run-wide spelling. Every value given is checked, the chosen approaches' or not: a bad one
     * is a ParameterException, not a value that would be taken the day its approach runs.
     */
    static OptionValues values(CommandSpec spec, List<Approach> chosen) {
        Map<String, Object> byKey = new LinkedHashMap<>();
        for (Approach approach : Approaches.all()) {
            for (ApproachOption option : approach.options()) {
                parseGiven(spec, name(approach, option), option).filter(value -> chosen.contains(approach))
                        .ifPresent(value -> byKey.put(OptionValues.key(approach, option), value));
            }
        }
        Map<String, Object> runWide = new LinkedHashMap<>();
        for (ApproachOption option : runWideOptions()) {
            parseGiven(spec, "--" + option.runWideName(), option).ifPresent(value ->
                    runWide.put(option.runWideName(), value));
        }
        return new OptionValues(byKey, runWide);
    }

    private static Optional<Object> parseGiven(CommandSpec spec, String name, ApproachOption option) {
        OptionSpec given = spec.findOption(name);
        String text = given == null ? null : given.getValue();
        if (text == null) return Optional.empty();
        try {
            return Optional.of(option.parse(text));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), name + ": " + e.getMessage());
        }
    }

    /**
     * The run-wide options as the run file records them, by their old keys ({@code buffer_size}):
     * the value the run's approaches that have the option share, or else what the run-wide
     * spelling set (its default when not given), as the key always meant.
     */
    static Map<String, Object> describeRunWide(List<Approach> approaches, ApproachSettings settings) {
        Map<String, Object> described = new LinkedHashMap<>();
        for (ApproachOption option : runWideOptions()) {
            described.put(option.runWideName().replace('-', '_'), recordedRunWide(option, approaches, settings));
        }
        return described;
    }

    /**
     * Every option of the run's approaches with the value in force, for the run file: id → name →
     * value. A run-wide option appears here only for an approach whose value its old key does not
     * already say.
     */
    static Map<String, Map<String, Object>> describe(List<Approach> approaches, ApproachSettings settings) {
        Map<String, Map<String, Object>> described = new LinkedHashMap<>();
        for (Approach approach : approaches) {
            Map<String, Object> options = new LinkedHashMap<>();
            for (ApproachOption option : approach.options()) {
                Object value = settings.option(approach, option);
                if (option.runWideName() == null || !value.equals(recordedRunWide(option, approaches, settings))) {
                    options.put(option.name(), value);
                }
            }
            if (!options.isEmpty()) described.put(approach.id(), options);
        }
        return described;
    }

    private static Object recordedRunWide(ApproachOption option, List<Approach> approaches, ApproachSettings settings) {
        Set<Object> inForce = new LinkedHashSet<>();
        for (Approach approach : approaches) {
            for (ApproachOption own : approach.options()) {
                if (option.runWideName().equals(own.runWideName())) inForce.add(settings.option(approach, own));
            }
        }
        return inForce.size() == 1 ? inForce.iterator().next() : settings.options().runWideValue(option);
    }

    /** One option per run-wide name, in the registry's order. */
    private static List<ApproachOption> runWideOptions() {
        Map<String, ApproachOption> byName = new LinkedHashMap<>();
        for (Approach approach : Approaches.all()) {
            for (ApproachOption option : approach.options()) {
                if (option.runWideName() != null) byName.putIfAbsent(option.runWideName(), option);
            }
        }
        return List.copyOf(byName.values());
    }

    /** The {@code --ID.NAME} of every approach whose option the run-wide one sets. */
    private static List<String> spellingsOf(ApproachOption runWide) {
        return Approaches.all().stream().flatMap(approach -> approach.options().stream()
                .filter(option -> runWide.runWideName().equals(option.runWideName()))
                .map(option -> name(approach, option))).toList();
    }

    static String name(Approach approach, ApproachOption option) {
        return "--" + OptionValues.key(approach, option);
    }
}
