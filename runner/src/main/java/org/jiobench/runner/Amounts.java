package org.jiobench.runner;

import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;

/** Converters of the options that are neither sizes nor counts: a share and a duration. */
final class Amounts {
    private static final Map<String, Double> SECONDS_PER_UNIT = Map.of("s", 1.0, "m", 60.0, "h", 3600.0);

    private Amounts() {
    }

    /** "5%" or "0.05" → 0.05. */
    static final class Share implements CommandLine.ITypeConverter<Double> {
        @Override
        public Double convert(String text) {
            String trimmed = text.trim();
            boolean percent = trimmed.endsWith("%");
            double value = number(percent ? trimmed.substring(0, trimmed.length() - 1) : trimmed,
                    "'" + text + "' is not a share (5% or 0.05)");
            return percent ? value / 100 : value;
        }
    }

    /** "120s", "10m", "1h" or a number of seconds → seconds. */
    static final class Seconds implements CommandLine.ITypeConverter<Double> {
        @Override
        public Double convert(String text) {
            String trimmed = text.trim().toLowerCase(Locale.ROOT);
            String unit = trimmed.isEmpty() ? "" : trimmed.substring(trimmed.length() - 1);
            double scale = SECONDS_PER_UNIT.getOrDefault(unit, 1.0);
            String digits = SECONDS_PER_UNIT.containsKey(unit) ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
            return number(digits, "'" + text + "' is not a duration (120s, 10m, 1h or seconds)") * scale;
        }
    }

    private static double number(String text, String problem) {
        double value;
        try {
            value = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException(problem);
        }
        if (!Double.isFinite(value)) throw new CommandLine.TypeConversionException(problem);
        return value;
    }
}
