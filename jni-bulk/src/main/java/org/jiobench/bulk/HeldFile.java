package org.jiobench.bulk;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A file held by a descriptor of this process (open(2) with {@code O_PATH}), which names the file
 * itself rather than whatever its path names later: a path removed and replaced (by a symbolic
 * link to another file, say) leaves the held file as it was, and anyone in this process opens
 * exactly the held file through {@link #descriptorPath()}, for reading or writing as its
 * permissions allow. Holding opens nothing for reading or writing: a FIFO does not block it, and a
 * FUSE file system sees no open.
 */
public final class HeldFile extends Descriptor {

    private HeldFile(String path, int fd) {
        super(path, fd);
    }

    /**
     * Holds what is at {@code path} without following a symbolic link there ({@code O_NOFOLLOW}):
     * a link is held as the link itself, for the caller to refuse once its attributes say so.
     */
    public static HeldFile hold(Path path) throws IOException {
        String name = Objects.requireNonNull(path, "path").toString();
        return new HeldFile(name, hold(NativePath.of(path), name));
    }

    /**
     * Creates {@code path} (mode 0666 less the umask) and holds it, in one step: {@code O_CREAT |
     * O_EXCL} creates a new file or fails, never following a link there, so the file held is the
     * one this call created.
     *
     * @throws java.nio.file.FileAlreadyExistsException if anything is at {@code path} already
     */
    public static HeldFile create(Path path) throws IOException {
        String name = Objects.requireNonNull(path, "path").toString();
        return new HeldFile(name, create(NativePath.of(path), name));
    }

    /** /proc/self/fd/N: the name by which this process reaches the held file. */
    public Path descriptorPath() throws IOException {
        return Path.of("/proc/self/fd/" + descriptor());
    }

    private static native int hold(byte[] nativePath, String path) throws IOException;

    private static native int create(byte[] nativePath, String path) throws IOException;
}
