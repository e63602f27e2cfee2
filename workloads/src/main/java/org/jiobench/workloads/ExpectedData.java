package org.jiobench.workloads;

import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * What the file must hold, worked out from the pattern's definition alone: element g of a type
 * holds {@link Pattern#bits} of g, cut to the type's width (and, for floating point, with the
 * top exponent bit cleared), stored most significant byte first (big-endian) or least significant
 * byte first (little-endian). Verification compares with this
 * and nothing else, so it shares no code with the conversions the approaches are timed on
 * ({@link ElementArray#encode}, the JDK's buffers, the JNI library): a byte-order bug in any of
 * them fails verification instead of passing it.
 */
public final class ExpectedData {
    private ExpectedData() {
    }

    /** The bits element g holds on disk, right-aligned in a long. */
    public static long bits(ElementType type, long g, long seed) {
        long bits = Pattern.bits(g, seed);
        return switch (type) {
            case BYTE -> bits & 0xFFL;
            case INT -> bits & 0xFFFF_FFFFL;
            case FLOAT -> bits & 0xBFFF_FFFFL;
            case LONG -> bits;
            case DOUBLE -> bits & 0xBFFF_FFFF_FFFF_FFFFL;
        };
    }

    /**
     * Writes bytes [0, end) of the transfer whose first element is {@code firstElement}, in
     * {@code order}, into {@code into}.
     */
    public static void bytes(ElementType type, long firstElement, long seed, ByteOrder order, byte[] into, int end) {
        int size = type.bytes();
        boolean bigEndian = order == ByteOrder.BIG_ENDIAN;
        // Whole elements in a loop of their own, lowest byte first from either end: twice as fast
        // as one loop that minds the cut, and verification's time is a run's wall time.
        int whole = end - end % size;
        long element = firstElement;
        for (int at = 0; at < whole; at += size, element++) {
            long bits = bits(type, element, seed);
            if (bigEndian) {
                for (int b = at + size - 1; b >= at; b--, bits >>>= 8) into[b] = (byte) bits;
            } else {
                for (int b = at; b < at + size; b++, bits >>>= 8) into[b] = (byte) bits;
            }
        }
        long cut = bits(type, element, seed);  // a stonewall may end a transfer inside an element
        for (int b = 0; whole + b < end; b++) {
            into[whole + b] = (byte) (cut >>> (8 * (bigEndian ? size - 1 - b : b)));
        }
    }

    /**
     * The first of bytes [0, end) of the transfer whose first element is {@code firstElement} that
     * differs from {@code actual}, which holds the transfer from index {@code at}; -1 when none does.
     */
    public static int firstWrongByte(ElementType type, long firstElement, long seed, ByteOrder order, byte[] actual,
                                     int at, byte[] scratch, int end) {
        bytes(type, firstElement, seed, order, scratch, end);
        return Arrays.mismatch(actual, at, at + end, scratch, 0, end);
    }

    /**
     * The same for a typed array holding the transfer from element {@code at}: the byte offset, in
     * the file's order, of the first wrong byte among the transfer's elements [0, end / size), or -1.
     */
    public static int firstWrongByte(ElementType type, long firstElement, long seed, ByteOrder order,
                                     ElementArray actual, int at, int end) {
        int size = type.bytes();
        for (int i = 0; i < end / size; i++) {
            long difference = actual.bits(at + i) ^ bits(type, firstElement + i, seed);
            if (difference != 0) {
                int wrongByte = order == ByteOrder.BIG_ENDIAN
                        ? (Long.numberOfLeadingZeros(difference) - (64 - 8 * size)) / 8
                        : Long.numberOfTrailingZeros(difference) / 8;
                return i * size + wrongByte;
            }
        }
        return -1;
    }
}
