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

    static String format(long bytes) {
        return SizeText.format(bytes);
    }
}
