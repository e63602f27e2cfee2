package org.jiobench.workloads;

import java.nio.ByteOrder;

/**
 * What an approach is told besides its file and array.
 *
 * @param byteOrder the order of the elements' bytes in the file
 * @param direct    open the file with O_DIRECT (only approaches that {@link Approach#opensDirect} are given it)
 * @param options   the values given to the approaches' own options
 */
public record ApproachSettings(ByteOrder byteOrder, boolean direct, OptionValues options) {
    /** Big-endian, buffered I/O, these option values. */
    public ApproachSettings(OptionValues options) {
        this(ByteOrder.BIG_ENDIAN, false, options);
    }

    /** The value of one of {@code approach}'s own options in force. */
    public Object option(Approach approach, ApproachOption option) {
        return options.value(approach, option);
    }

    /** A size option's value as an int (sizes are at most a Java array's). */
    public int size(Approach approach, ApproachOption option) {
        return Math.toIntExact((Long) option(approach, option));
    }
}
