package org.jiobench.runner;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Sizes as IOR and fio users write them: {@code 4096}, {@code 4k}, {@code 64KiB}, {@code 1MiB},
 * {@code 2GiB}. The letters are binary multiples whether or not an {@code iB} follows, as in IOR;
 * a bare {@code B} is bytes.
 */
final class Sizes implements CommandLine.ITypeConverter<Long> {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?)(i?b)?", Pattern.CASE_INSENSITIVE);

    @Override
    public Long convert(String text) {
        return parse(text);
    }

    static long parse(String text) {
        Matcher matcher = SIZE.matcher(text.trim());
        if (!matcher.matches()) {
            throw new CommandLine.TypeConversionException("'" + text + "' is not a size (examples: 4096, 4k, 64KiB, 1MiB, 2GiB)");
        }
        int shift = switch (matcher.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        if (matcher.group(3) != null && matcher.group(3).equalsIgnoreCase("ib") && shift == 0) {
            throw new CommandLine.TypeConversionException("'" + text + "' is not a size (examples: 4096, 4k, 64KiB, 1MiB, 2GiB)");
        }
        long value;
        try {
            value = Long.parseLong(matcher.group(1));
        } catch (NumberFormatException tooLong) {
            throw new CommandLine.TypeConversionException("'" + text + "' is too large");
        }
        if (value <= 0) {
            throw new CommandLine.TypeConversionException("'" + text + "' must be larger than zero");
        }
        if (value > (Long.MAX_VALUE >> shift)) {
            throw new CommandLine.TypeConversionException("'" + text + "' is too large");
        }
        return value << shift;
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
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int unit = 0;
        while (unit < units.length - 1 && bytes % 1024 == 0 && bytes >= 1024) {
            bytes /= 1024;
            unit++;
        }
        return bytes + units[unit];
    }
}
