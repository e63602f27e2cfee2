package org.jiobench.bulk;

import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.Arrays;

/** A path as open(2) takes it: its bytes in the platform's file name encoding, NUL-terminated. */
final class NativePath {

    // The encoding the JDK itself uses for file names.
    private static final Charset ENCODING =
            Charset.forName(System.getProperty("sun.jnu.encoding", Charset.defaultCharset().name()));

    private NativePath() {
    }

    /** @throws UnsupportedOperationException if the path is not on the default file system */
    static byte[] of(Path path) {
        byte[] name = path.toFile().getPath().getBytes(ENCODING);
        return Arrays.copyOf(name, name.length + 1);
    }
}
