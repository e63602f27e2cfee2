package org.jiobench.workloads;

/**
 * The explicit shift-and-mask conversion of the paper's encode/decode approach (section 3.2):
 * what an application must write by hand when Java offers no bulk I/O for typed arrays.
 */
final class BigEndian {
    private BigEndian() {
    }

    static void putInt(byte[] bytes, int at, int value) {
        bytes[at] = (byte) (value >>> 24);
        bytes[at + 1] = (byte) (value >>> 16);
        bytes[at + 2] = (byte) (value >>> 8);
        bytes[at + 3] = (byte) value;
    }

    /** Masks each byte with 255 so sign extension cannot leak into the upper bits. */
    static int getInt(byte[] bytes, int at) {
        return ((bytes[at] & 255) << 24)
                | ((bytes[at + 1] & 255) << 16)
                | ((bytes[at + 2] & 255) << 8)
                | (bytes[at + 3] & 255);
    }

    static void putLong(byte[] bytes, int at, long value) {
        putInt(bytes, at, (int) (value >>> 32));
        putInt(bytes, at + 4, (int) value);
    }

    static long getLong(byte[] bytes, int at) {
        return ((long) getInt(bytes, at) << 32) | (getInt(bytes, at + 4) & 0xFFFF_FFFFL);
    }
}
