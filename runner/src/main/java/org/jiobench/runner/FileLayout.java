package org.jiobench.runner;

import java.nio.file.Path;

/** How one file system lays out a file the run creates: its stripes over the servers that hold data. */
interface FileLayout {
    /**
     * Creates {@code file} with this layout, as O_EXCL would: an existing file is an error. Checks
     * what needs the file system first, so that a layout it cannot take creates nothing.
     */
    void create(Path file) throws UsageError;
}
