package org.jiobench.workloads;

import java.util.Map;

/**
 * The approach options given on the command line; an option given neither way has its default.
 *
 * @param byKey   values by {@code ID.NAME}, each for one approach
 * @param runWide values by an option's {@link ApproachOption#runWideName}, for every approach that
 *                has the option and was not given its own
 */
public record OptionValues(Map<String, Object> byKey, Map<String, Object> runWide) {
    /** Every option at its default. */
    public static final OptionValues DEFAULTS = new OptionValues(Map.of(), Map.of());

    public OptionValues {
        byKey = Map.copyOf(byKey);
        runWide = Map.copyOf(runWide);
    }

    /** The key of an approach's option: what follows the dashes on the command line. */
    public static String key(Approach approach, ApproachOption option) {
        return approach.id() + "." + option.name();
    }

    /** The value of one of {@code approach}'s options in force: its own, the run-wide one, or the default. */
    public Object value(Approach approach, ApproachOption option) {
        Object own = byKey.get(key(approach, option));
        return own != null ? own : runWideValue(option);
    }

    /** What {@code --RUN-WIDE-NAME} set, or the default; for an approach's own knob, its default. */
    public Object runWideValue(ApproachOption option) {
        Object given = option.runWideName() == null ? null : runWide.get(option.runWideName());
        return given != null ? given : option.parse(option.defaultValue());
    }
}
