package org.jiobench.workloads;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sizes as IOR and fio users write them: {@code 4096}, {@code 4k}, {@code 64KiB}, {@code 1MiB},
 * {@code 2GiB}. The letters are binary multiples whether or not an {@code iB} follows, as in IOR;
 * a bare {@code B} is bytes. Here, so that an approach's own size options read them as the
 * runner's options do.
 */
public final class SizeText {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?)(i?b)?", Pattern.CASE_INSENSITIVE);

    private SizeText() {
    }

    /** @throws IllegalArgumentException naming the text and what is wrong with it */
    public static long parse(String text) {
        Matcher matcher = SIZE.matcher(text.trim());
        if (!matcher.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a size (examples: 4096, 4k, 64KiB, 1MiB, 2GiB)");
        }
        int shift = switch (matcher.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        if (matcher.group(3) != null && matcher.group(3).equalsIgnoreCase("ib") && shift == 0) {
            throw new IllegalArgumentException("'" + text + "' is not a size (examples: 4096, 4k, 64KiB, 1MiB, 2GiB)");
        }
        long value;
        try {
            value = Long.parseLong(matcher.group(1));
        } catch (NumberFormatException tooLong) {
            throw new IllegalArgumentException("'" + text + "' is too large");
        }
        if (value <= 0) {
            throw new IllegalArgumentException("'" + text + "' must be larger than zero");
        }
        if (value > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("'" + text + "' is too large");
        }
        return value << shift;
    }

    /** The shortest exact binary form: 1048576 → 1MiB. */
    public static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int unit = 0;
        while (unit < units.length - 1 && bytes % 1024 == 0 && bytes >= 1024) {
            bytes /= 1024;
            unit++;
        }
        return bytes + units[unit];
    }
}
