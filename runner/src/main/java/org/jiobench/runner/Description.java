package org.jiobench.runner;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jiobench.workloads.Approach;
import org.jiobench.workloads.ApproachOption;
import org.jiobench.workloads.Approaches;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code --describe}: the runner's vocabulary as one JSON object, for the Python verbs, which read
 * it rather than keep copies. Built from the command's picocli model and the approaches' registry,
 * so it says what this runner parses, not what someone remembered to write down.
 */
final class Description {
    static final String OPTION = "--describe";

    private Description() {
    }

    /** Adds {@value #OPTION} to the command: given, it prints the description and runs nothing. */
    static void addTo(CommandLine cli) {
        // A help option: with it picocli checks no other option, as with --help and --version.
        cli.getCommandSpec().addOption(OptionSpec.builder(OPTION).help(true)
                .description("Print the approaches, the options and the limits of this runner as JSON, and exit.")
                .build());
        CommandLine.IExecutionStrategy run = cli.getExecutionStrategy();
        cli.setExecutionStrategy(parsed -> {
            if (!parsed.hasMatchedOption(OPTION)) return run.execute(parsed);
            cli.getOut().println(Json.line(of(cli.getCommandSpec())));
            cli.getOut().flush();
            return 0;
        });
    }

    static Map<String, Object> of(CommandSpec spec) {
        Map<String, Object> description = new LinkedHashMap<>();
        description.put("approaches", approaches());
        description.put("groups", Approaches.groups());
        description.put("options", runWideOptions(spec));
        description.put("auto_min_repetitions", RunCommand.AUTO_MIN_REPS);
        return description;
    }

    private static List<Map<String, Object>> approaches() {
        Map<String, List<String>> groups = Approaches.groups();
        List<Map<String, Object>> approaches = new ArrayList<>();
        for (Approach approach : Approaches.all()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("id", approach.id());
            entry.put("groups", groups.keySet().stream().filter(name -> groups.get(name).contains(approach.id()))
                    .toList());
            entry.put("reads_in_place", approach.readsInPlace());
            entry.put("unavailable", approach.unavailable().orElse(null));
            entry.put("options", approach.options().stream().map(option -> approachOption(approach, option)).toList());
            approaches.add(entry);
        }
        return approaches;
    }

    private static Map<String, Object> approachOption(Approach approach, ApproachOption option) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("name", ApproachOptions.name(approach, option));
        entry.put("run_wide_name", option.runWideName() == null ? null : "--" + option.runWideName());
        entry.put("default", option.defaultValue());
        entry.put("choices", option.choices());
        return entry;
    }

    /** The options outside the approaches' sections, run-wide spellings of approaches' knobs included. */
    private static List<Map<String, Object>> runWideOptions(CommandSpec spec) {
        List<Map<String, Object>> options = new ArrayList<>();
        for (OptionSpec option : spec.options()) {
            if (option.group() != null) continue;
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", option.longestName());
            entry.put("short_names", List.of(option.names()).stream().filter(name -> !name.startsWith("--")).toList());
            entry.put("takes_value", option.arity().max() > 0);
            entry.put("label", option.arity().max() > 0 ? option.paramLabel() : null);
            options.add(entry);
        }
        return options;
    }
}
