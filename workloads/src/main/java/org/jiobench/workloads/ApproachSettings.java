package org.jiobench.workloads;

import java.nio.ByteOrder;
import java.util.Map;

/**
 * What an approach is told besides its file and array.
 *
 * @param bufferSize              bytes of the stream buffer of buffered-data-stream
 * @param calibrateBytesPerSecond the rate calibrate pretends to move, per rank
 * @param byteOrder               the order of the elements' bytes in the file
 * @param direct                  open the file with O_DIRECT (only approaches that {@link Approach#opensDirect} are given it)
 * @param options                 the values of the approaches' own options by {@code ID.NAME}; an
 *                                option missing here has its default
 */
public record ApproachSettings(int bufferSize, long calibrateBytesPerSecond, ByteOrder byteOrder, boolean direct,
                               Map<String, Object> options) {
    public ApproachSettings {
        if (bufferSize <= 0) throw new IllegalArgumentException("buffer size must be positive");
        if (calibrateBytesPerSecond <= 0) throw new IllegalArgumentException("calibrate rate must be positive");
        options = Map.copyOf(options);
    }

    /** Big-endian, buffered I/O, every approach option at its default. */
    public ApproachSettings(int bufferSize, long calibrateBytesPerSecond) {
        this(bufferSize, calibrateBytesPerSecond, ByteOrder.BIG_ENDIAN, false, Map.of());
    }

    /** The key of an approach's option: what follows the dashes on the command line. */
    public static String key(Approach approach, ApproachOption option) {
        return approach.id() + "." + option.name();
    }

    /** The value of one of {@code approach}'s own options: given, or its default. */
    public Object option(Approach approach, ApproachOption option) {
        Object value = options.get(key(approach, option));
        return value != null ? value : option.parse(option.defaultValue());
    }

    /** A size option's value as an int (sizes are at most a Java array's). */
    public int size(Approach approach, ApproachOption option) {
        return Math.toIntExact((Long) option(approach, option));
    }
}
