package org.jiobench.bulk;

import java.io.Closeable;
import java.io.IOException;

/** A file descriptor of this process that names a file, closed once. */
abstract class Descriptor implements Closeable {

    static {
        NativeLibrary.load();
    }

    /** The file as it was named, for messages. */
    final String path;
    private int fd;

    Descriptor(String path, int fd) {
        this.path = path;
        this.fd = fd;
    }

    /** The descriptor, while it is open. */
    final int descriptor() throws IOException {
        if (fd < 0) {
            throw new IOException(path + ": closed");
        }
        return fd;
    }

    /** Closes the descriptor; closing it again does nothing. */
    @Override
    public final void close() throws IOException {
        if (fd >= 0) {
            int closing = fd;
            fd = -1;
            close(closing, path);
        }
    }

    @Override
    public final String toString() {
        return getClass().getSimpleName() + "[" + path + (fd < 0 ? ", closed]" : "]");
    }

    private static native void close(int fd, String path) throws IOException;
}
