package org.jiobench.bulk;

import java.io.FileDescriptor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Evicts a file's pages from the operating system's page cache, so that the next read of it comes
 * from storage rather than from memory: fdatasync(2), then posix_fadvise(2) with
 * {@code POSIX_FADV_DONTNEED} over the whole file. The kernel may keep pages that other processes
 * hold mapped or locked.
 */
public final class PageCache {

    static {
        NativeLibrary.load();
    }

    private PageCache() {
    }

    /** Opens {@code file} read-only, drops its cached pages and closes it again. */
    public static void drop(Path file) throws IOException {
        String name = Objects.requireNonNull(file, "file").toString();
        dropFile(NativePath.of(file), name);
    }

    /** Drops the cached pages of the open file behind {@code fd}, for instance a RandomAccessFile's getFD(). */
    public static void drop(FileDescriptor fd) throws IOException {
        dropDescriptor(fd);
    }

    private static native void dropFile(byte[] nativePath, String path) throws IOException;

    private static native void dropDescriptor(FileDescriptor fd) throws IOException;
}
