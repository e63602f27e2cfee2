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
 * @param largest      the largest size allowed; unused for a choice
 * @param runWideName  for a knob that was once the whole run's, its old name: {@code --NAME}
 *                     still sets it for every approach that has it, and the run file still
 *                     records it as NAME with underscores; null for an approach's own knob
 */
public record ApproachOption(String name, String label, String defaultValue, List<String> choices, long largest,
                             String runWideName, String description) {
    /** The largest size a Java array holds. */
    private static final long LARGEST_ARRAY = Integer.MAX_VALUE - 8;

    /** A byte count, written as the size options are ({@link SizeText}), at most a Java array's. */
    public static ApproachOption size(String name, String defaultValue, String description) {
        return new ApproachOption(name, "SIZE", defaultValue, List.of(), LARGEST_ARRAY, null, description);
    }

    /** Bytes per second, written as a size: a rate is no array, so it may exceed one. */
    public static ApproachOption rate(String name, String defaultValue, String description) {
        return new ApproachOption(name, "SIZE", defaultValue, List.of(), Long.MAX_VALUE, null, description);
    }

    /**
     * {@code piece-size}: the bytes an approach that converts or stages through a buffer moves at a
     * time, by default the jni-bulk library's buffer, so that the C and Java approaches compare at
     * one size (bench/pieces.sh measures the sizes).
     */
    public static ApproachOption pieceSize(String description) {
        return size("piece-size", SizeText.format(BufferPolicy.DEFAULT_CHUNK_BYTES), description);
    }

    /**
     * {@code buffer-size}: the buffer of the approaches that buffer each operation, the JDK's
     * default as theirs; {@code --buffer-size} sets it for all of them at once, so that a sweep over
     * it compares them at one size.
     */
    public static ApproachOption bufferSize(String description) {
        return size("buffer-size", "8KiB", description + " (the JDK's default; Xu and Guo's was 1KiB)")
                .runWide("buffer-size");
    }

    public static ApproachOption choice(String name, List<String> choices, String defaultValue, String description) {
        return new ApproachOption(name, String.join("|", choices), defaultValue, List.copyOf(choices), 0, null,
                description);
    }

    /** The same knob, also set for every approach that has it by {@code --runWideName}. */
    public ApproachOption runWide(String runWideName) {
        return new ApproachOption(name, label, defaultValue, choices, largest, runWideName, description);
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
        if (bytes > largest) throw new IllegalArgumentException("'" + text + "' is too large");
        return bytes;
    }
}
