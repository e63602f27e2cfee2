package org.jiobench.workloads;

import java.util.Locale;

/** Whether a phase writes the file or reads it. */
public enum IoMode {
    WRITE, READ;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The {@link java.io.RandomAccessFile} mode: "rw" creates without truncating. */
    public String randomAccessMode() {
        return this == WRITE ? "rw" : "r";
    }
}
