package org.jiobench.runner;

import org.jiobench.workloads.SizeText;
import picocli.CommandLine;

/** The size options' converter: {@link SizeText}'s forms, its mistakes as picocli's. */
final class Sizes implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String text) {
        return parse(text);
    }

    static long parse(String text) {
        try {
            return SizeText.parse(text);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }

    /** A size to read, not to parse back: 42991616 → 41.0 MiB. */
    static String describe(long bytes) {
        String[] units = {"bytes", "KiB", "MiB", "GiB", "TiB"};
        double value = bytes;
        int unit = 0;
        while (unit < units.length - 1 && value >= 1024) {
            value /= 1024;
            unit++;
        }
        return unit == 0 ? bytes + " bytes" : String.format(java.util.Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    /** The shortest exact binary form: 1048576 → 1MiB. */
    static String format(long bytes) {
        return SizeText.format(bytes);
    }
}
