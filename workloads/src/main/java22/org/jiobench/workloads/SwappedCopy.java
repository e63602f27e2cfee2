package org.jiobench.workloads;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Typed arrays to and from segments in the byte order that is not the machine's. {@code
 * MemorySegment.copy} with a swapped layout swaps in a scalar loop inside the JVM (measured at a
 * third of the speed of a vectorized swap); a plain loop of segment accesses with the swapped
 * layout as a constant is vectorized by C2.
 */
final class SwappedCopy {
    /** The order that is not the machine's: constants, so that C2 folds the accesses and vectorizes the loops. */
    private static final ByteOrder SWAPPED = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN
            ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT.withOrder(SWAPPED);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG.withOrder(SWAPPED);
    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT.withOrder(SWAPPED);
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE.withOrder(SWAPPED);

    private SwappedCopy() {
    }

    /** Moves {@code count} elements between the array, from index {@code from}, and the start of a segment. */
    interface Copier {
        void store(int from, MemorySegment segment, int count);

        void load(MemorySegment segment, int from, int count);
    }

    static Copier bulk(Object array, ValueLayout inFile) {
        return new Copier() {
            @Override public void store(int from, MemorySegment segment, int count) {
                MemorySegment.copy(array, from, segment, inFile, 0, count);
            }

            @Override public void load(MemorySegment segment, int from, int count) {
                MemorySegment.copy(segment, inFile, 0, array, from, count);
            }
        };
    }

    /** One loop per type and direction, each with its layout a constant. */
    static Copier loop(Object array) {
        return switch (array) {
            case int[] a -> new Copier() {
                @Override public void store(int from, MemorySegment s, int n) {
                    for (int i = 0; i < n; i++) s.setAtIndex(INT, i, a[from + i]);
                }

                @Override public void load(MemorySegment s, int from, int n) {
                    for (int i = 0; i < n; i++) a[from + i] = s.getAtIndex(INT, i);
                }
            };
            case long[] a -> new Copier() {
                @Override public void store(int from, MemorySegment s, int n) {
                    for (int i = 0; i < n; i++) s.setAtIndex(LONG, i, a[from + i]);
                }

                @Override public void load(MemorySegment s, int from, int n) {
                    for (int i = 0; i < n; i++) a[from + i] = s.getAtIndex(LONG, i);
                }
            };
            case float[] a -> new Copier() {
                @Override public void store(int from, MemorySegment s, int n) {
                    for (int i = 0; i < n; i++) s.setAtIndex(FLOAT, i, a[from + i]);
                }

                @Override public void load(MemorySegment s, int from, int n) {
                    for (int i = 0; i < n; i++) a[from + i] = s.getAtIndex(FLOAT, i);
                }
            };
            case double[] a -> new Copier() {
                @Override public void store(int from, MemorySegment s, int n) {
                    for (int i = 0; i < n; i++) s.setAtIndex(DOUBLE, i, a[from + i]);
                }

                @Override public void load(MemorySegment s, int from, int n) {
                    for (int i = 0; i < n; i++) a[from + i] = s.getAtIndex(DOUBLE, i);
                }
            };
            default -> throw new IllegalArgumentException("no loop for a " + array.getClass().getSimpleName());
        };
    }
    /** Reverses the bytes of each element of {@code size} bytes (4 or 8) of a segment, in place. */
    static void swapInPlace(MemorySegment segment, int size) {
        if (size == Integer.BYTES) {
            for (long i = 0; i < segment.byteSize() / Integer.BYTES; i++) {
                segment.setAtIndex(INT, i, segment.getAtIndex(ValueLayout.JAVA_INT, i));
            }
        } else {
            for (long i = 0; i < segment.byteSize() / Long.BYTES; i++) {
                segment.setAtIndex(LONG, i, segment.getAtIndex(ValueLayout.JAVA_LONG, i));
            }
        }
    }
}
