package org.jiobench.bulk;

/**
 * The native half of {@link BulkDataInputStream} and {@link BulkDataOutputStream}: converts
 * {@code count} elements of an array, from {@code offset}, to or from the big-endian bytes at the start
 * of {@code chunk}. The arguments are checked again in C. A byte[] needs no conversion and has no
 * method here.
 */
final class BigEndianCodec {

    static {
        NativeLibrary.load();
    }

    /** One of the encode methods below, for one array type. */
    @FunctionalInterface
    interface Encoder<A> {
        void encode(A array, int offset, int count, byte[] chunk);
    }

    /** One of the decode methods below, for one array type. */
    @FunctionalInterface
    interface Decoder<A> {
        void decode(byte[] chunk, A array, int offset, int count);
    }

    private BigEndianCodec() {
    }

    static native void encodeBooleans(boolean[] array, int offset, int count, byte[] chunk);

    static native void decodeBooleans(byte[] chunk, boolean[] array, int offset, int count);

    static native void encodeChars(char[] array, int offset, int count, byte[] chunk);

    static native void decodeChars(byte[] chunk, char[] array, int offset, int count);

    static native void encodeShorts(short[] array, int offset, int count, byte[] chunk);

    static native void decodeShorts(byte[] chunk, short[] array, int offset, int count);

    static native void encodeInts(int[] array, int offset, int count, byte[] chunk);

    static native void decodeInts(byte[] chunk, int[] array, int offset, int count);

    static native void encodeLongs(long[] array, int offset, int count, byte[] chunk);

    static native void decodeLongs(byte[] chunk, long[] array, int offset, int count);

    static native void encodeFloats(float[] array, int offset, int count, byte[] chunk);

    static native void decodeFloats(byte[] chunk, float[] array, int offset, int count);

    static native void encodeDoubles(double[] array, int offset, int count, byte[] chunk);

    static native void decodeDoubles(byte[] chunk, double[] array, int offset, int count);
}
