package org.jiobench.workloads;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * A file opened, read, written and closed by the C library's own calls, from Java through the
 * Foreign Function &amp; Memory API. {@code pread} and {@code pwrite} are critical downcalls with
 * heap access: they take a segment of a Java array itself, as GetPrimitiveArrayCritical would
 * hand it to C, and like such a region they hold off the garbage collector while they run. Not
 * for use by several threads at once.
 */
final class LibcFile implements AutoCloseable {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final long ERRNO = CALL_STATE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    /** O_WRONLY | O_CREAT and O_CLOEXEC: the same numbers on every Linux architecture. */
    private static final int WRITE_FLAGS = 01 | 0100;
    private static final int CLOEXEC = 02000000;
    private static final MethodHandle OPEN = downcall("open",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(2));
    private static final FunctionDescriptor POSITIONED = FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
    private static final MethodHandle PREAD = downcall("pread", POSITIONED, Linker.Option.critical(true));
    private static final MethodHandle PWRITE = downcall("pwrite", POSITIONED, Linker.Option.critical(true));
    private static final MethodHandle FSYNC = downcall("fsync",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle CLOSE = downcall("close",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle STRERROR = LINKER.downcallHandle(LINKER.defaultLookup().find("strerror")
            .orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    /** memset of no bytes, as a critical downcall: it returns the address C is handed for a segment. */
    private static final MethodHandle ADDRESS_OF = LINKER.downcallHandle(LINKER.defaultLookup().find("memset")
            .orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG), Linker.Option.critical(true));
    private static final int EINTR = 4;

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment callState = arena.allocate(CALL_STATE);
    private final String path;
    private final int fd;

    LibcFile(Path path, boolean write) throws IOException {
        this.path = path.toString();
        try {
            int opened = (int) OPEN.invokeExact(callState, arena.allocateFrom(this.path),
                    (write ? WRITE_FLAGS : 0) | CLOEXEC, 0666);
            if (opened < 0) throw failure("open");
            this.fd = opened;
        } catch (IOException e) {
            arena.close();
            throw e;
        } catch (Throwable e) {
            arena.close();
            throw new IllegalStateException(e);
        }
    }

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        Linker.Option[] all = java.util.Arrays.copyOf(options, options.length + 1);
        all[options.length] = Linker.Option.captureCallState("errno");
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor, all);
    }

    /**
     * The address a system call would be handed for this segment now: for a segment of a Java
     * array, where the array lies until the collector moves it (never while a call holds it).
     */
    static long addressOf(MemorySegment segment) {
        try {
            return ((MemorySegment) ADDRESS_OF.invokeExact(segment, 0, 0L)).address();
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes all of {@code bytes} at {@code offset}, going on after short writes and EINTR. */
    void write(MemorySegment bytes, long offset) throws IOException {
        for (long done = 0; done < bytes.byteSize();) {
            long written = call(PWRITE, bytes.asSlice(done), offset + done);
            if (written < 0) throw failure("pwrite");
            done += written;
        }
    }

    /** Fills {@code bytes} from {@code offset}; the end of the file first is an EOFException. */
    void read(MemorySegment bytes, long offset) throws IOException {
        for (long done = 0; done < bytes.byteSize();) {
            long got = call(PREAD, bytes.asSlice(done), offset + done);
            if (got < 0) throw failure("pread");
            if (got == 0) {
                throw new EOFException(path + ": end of file after " + done + " of " + bytes.byteSize()
                        + " bytes at offset " + offset);
            }
            done += got;
        }
    }

    /** One call, retried on EINTR: the count it returns, or -1 with errno in the call state. */
    private long call(MethodHandle positioned, MemorySegment bytes, long offset) {
        try {
            long result;
            do {
                result = (long) positioned.invokeExact(callState, fd, bytes, bytes.byteSize(), offset);
            } while (result < 0 && errno() == EINTR);
            return result;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    void fsync() throws IOException {
        try {
            if ((int) FSYNC.invokeExact(callState, fd) < 0) throw failure("fsync");
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Linux releases the descriptor even when close reports EINTR; retrying could close another file. */
    @Override
    public void close() throws IOException {
        try {
            if ((int) CLOSE.invokeExact(callState, fd) < 0 && errno() != EINTR) throw failure("close");
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        } finally {
            arena.close();
        }
    }

    private int errno() {
        return callState.get(ValueLayout.JAVA_INT, ERRNO);
    }

    /** "path: call: reason", as the JNI library words it. */
    private IOException failure(String call) {
        String reason;
        try {
            reason = ((MemorySegment) STRERROR.invokeExact(errno())).reinterpret(256).getString(0);
        } catch (Throwable e) {
            reason = "errno " + errno();
        }
        return new IOException(path + ": " + call + ": " + reason);
    }
}
