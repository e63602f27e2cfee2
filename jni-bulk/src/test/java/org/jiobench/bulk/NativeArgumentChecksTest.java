package org.jiobench.bulk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The C entry points check their arguments themselves, whatever the Java side passes: found by
 * reflection, each native method of the array classes is called directly with every bad argument.
 */
class NativeArgumentChecksTest {

    private static final int LENGTH = 10;
    private static final int[][] BAD_RANGES = {
        {-1, 1}, {0, -1}, {11, 0}, {10, 1}, {1, 10},
        {Integer.MAX_VALUE, 1}, {1, Integer.MAX_VALUE}, {Integer.MAX_VALUE, Integer.MAX_VALUE},
    };

    @TempDir
    Path dir;

    private RandomAccessFile file;

    @BeforeEach
    void openFile() throws IOException {
        file = new RandomAccessFile(dir.resolve("data.bin").toFile(), "rw");
        file.write(new byte[1024]);
    }

    @AfterEach
    void closeFile() throws IOException {
        file.close();
    }

    static Stream<Method> fileTransfers() {
        return nativeMethods(ArrayFileIO.class);
    }

    static Stream<Method> codecMethods() {
        return nativeMethods(BigEndianCodec.class);
    }

    private static Stream<Method> nativeMethods(Class<?> type) {
        return Arrays.stream(type.getDeclaredMethods()).filter(m -> Modifier.isNative(m.getModifiers()));
    }

    @Test
    void everyArrayTypeHasItsEntryPoints() {
        assertEquals(16, fileTransfers().count(), "pread and pwrite for 8 types");
        assertEquals(14, codecMethods().count(), "encode and decode for the 7 types other than byte");
    }

    @ParameterizedTest
    @MethodSource("fileTransfers")
    void fileTransfersCheckEveryArgument(Method transfer) throws Throwable {
        Class<?> arrayType = transfer.getParameterTypes()[2];
        Object array = java.lang.reflect.Array.newInstance(arrayType.getComponentType(), LENGTH);
        FileDescriptor fd = file.getFD();
        ByteBuffer buffer = ByteBuffer.allocateDirect(64);

        // With every flag too: the file's byte order and I/O straight to the array change no check.
        for (int flags : new int[] {0, 1, 2, 3}) {
            assertEquals(0L, call(transfer, withFlags(flags, fd, "f", array, 0, 0, 0L, buffer)),
                    "an empty range is fine");
            assertThrown(NullPointerException.class, transfer, withFlags(flags, fd, "f", null, 0, 0, 0L, buffer));
            for (int[] range : BAD_RANGES) {
                assertThrown(IndexOutOfBoundsException.class, transfer,
                        withFlags(flags, fd, "f", array, range[0], range[1], 0L, buffer));
            }
            assertThrown(NullPointerException.class, transfer, withFlags(flags, fd, "f", array, 0, 1, 0L, null));
            for (ByteBuffer notUsable : List.of(ByteBuffer.allocate(64), ByteBuffer.allocateDirect(0))) {
                assertThrown(IllegalArgumentException.class, transfer,
                        withFlags(flags, fd, "f", array, 0, 1, 0L, notUsable));
            }
            for (long position : new long[] {-1L, Long.MAX_VALUE}) {
                assertThrown(IllegalArgumentException.class, transfer,
                        withFlags(flags, fd, "f", array, 0, 1, position, buffer));
            }
            assertThrown(NullPointerException.class, transfer, withFlags(flags, null, "f", array, 0, 1, 0L, buffer));
            IOException closed = assertThrown(IOException.class, transfer,
                    withFlags(flags, new FileDescriptor(), "f", array, 0, 1, 0L, buffer));
            assertEquals("f: closed", closed.getMessage());
        }
    }

    @ParameterizedTest
    @MethodSource("codecMethods")
    void codecMethodsCheckEveryArgument(Method codec) throws Throwable {
        boolean encode = codec.getName().startsWith("encode");
        Class<?> arrayType = codec.getParameterTypes()[encode ? 0 : 1];
        Object array = java.lang.reflect.Array.newInstance(arrayType.getComponentType(), LENGTH);
        byte[] chunk = new byte[8 * LENGTH];

        call(codec, arguments(encode, array, 0, LENGTH, chunk));
        assertThrown(NullPointerException.class, codec, arguments(encode, null, 0, 1, chunk));
        assertThrown(NullPointerException.class, codec, arguments(encode, array, 0, 1, null));
        for (int[] range : BAD_RANGES) {
            assertThrown(IndexOutOfBoundsException.class, codec, arguments(encode, array, range[0], range[1], chunk));
        }
        byte[] oneByteShort = new byte[LENGTH * PrimitiveType.of(arrayType.getComponentType()).bytes - 1];
        assertThrown(IndexOutOfBoundsException.class, codec, arguments(encode, array, 0, LENGTH, oneByteShort));
    }

    private static Object[] arguments(boolean encode, Object array, int offset, int count, byte[] chunk) {
        return encode ? new Object[] {array, offset, count, chunk} : new Object[] {chunk, array, offset, count};
    }

    private static Object[] withFlags(int flags, Object... arguments) {
        Object[] all = Arrays.copyOf(arguments, arguments.length + 1);
        all[arguments.length] = flags;
        return all;
    }

    private static Object call(Method method, Object... arguments) throws Throwable {
        try {
            return method.invoke(null, arguments);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static <T extends Throwable> T assertThrown(Class<T> expected, Method method, Object... arguments) {
        return assertThrows(expected, () -> call(method, arguments),
                () -> method.getName() + Arrays.stream(arguments).map(String::valueOf)
                        .collect(Collectors.joining(", ", "(", ")")));
    }

    @Test
    void nativePathsAreCheckedToo() throws NoSuchMethodException {
        Method dropFile = PageCache.class.getDeclaredMethod("dropFile", byte[].class, String.class);
        dropFile.setAccessible(true);
        assertThrown(NullPointerException.class, dropFile, null, "f");
        for (byte[] malformed : List.of(new byte[0], new byte[] {'a'}, new byte[] {'a', 0, 'b', 0},
                new byte[4097])) {
            assertThrown(IllegalArgumentException.class, dropFile, malformed, "f");
        }
    }
}
