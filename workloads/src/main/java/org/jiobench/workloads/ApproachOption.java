package org.jiobench.workloads;

import java.util.List;
import org.jiobench.bulk.BufferPolicy;

/**
 * A knob that belongs to one approach (IOR's backends have them: {@code --posix.odirect}). The
 * approach lists its options; the runner offers each as {@code --ID.NAME}, shows it in
 * {@code --help} under the approach's name, refuses a bad value in one line and records the
 * value in force in the run file. Adding a knob touches the approach alone.
 *
 * @param name         kebab-case, unique within the approach
 * @param label        what {@code --help} shows for the value
 * @param defaultValue the value's text when the option is not given
 * @param choices      the allowed words of a choice option; empty for a size
 */
public record ApproachOption(String name, String label, String defaultValue, List<String> choices,
                             String description) {

    /** A byte count, written as the size options are ({@link SizeText}), at most a Java array's. */
    public static ApproachOption size(String name, String defaultValue, String description) {
        return new ApproachOption(name, "SIZE", defaultValue, List.of(), description);
    }

    /**
     * {@code piece-size}: the bytes an approach that converts or stages through a buffer moves at a
     * time, by default the jni-bulk library's buffer, so that the C and Java approaches compare at
     * one size (bench/pieces.sh measures the sizes).
     */
    public static ApproachOption pieceSize(String description) {
        return size("piece-size", SizeText.format(BufferPolicy.DEFAULT_CHUNK_BYTES), description);
    }

    public static ApproachOption choice(String name, List<String> choices, String defaultValue, String description) {
        return new ApproachOption(name, String.join("|", choices), defaultValue, List.copyOf(choices), description);
    }

    /**
     * The value of {@code text}: a Long for a size, the word itself for a choice.
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public Object parse(String text) {
        if (!choices.isEmpty()) {
            if (!choices.contains(text)) {
                throw new IllegalArgumentException("'" + text + "' is not one of " + String.join(", ", choices));
            }
            return text;
        }
        long bytes = SizeText.parse(text);
        if (bytes > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("'" + text + "' is too large");
        return bytes;
    }
}
