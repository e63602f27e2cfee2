package org.jiobench.runner;

import java.nio.file.Path;

/** How a verification failure reads, wherever it was found. */
final class Verification {
    private Verification() {
    }

    static String describe(Path file, long fileOffset) {
        return "wrong data at byte offset " + fileOffset + " of " + file;
    }
}
