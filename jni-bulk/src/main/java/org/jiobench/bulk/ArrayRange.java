package org.jiobench.bulk;

import java.lang.reflect.Array;
import java.util.Objects;

/** The argument check of every readArray and writeArray, done in Java before any data moves. */
final class ArrayRange {

    private ArrayRange() {
    }

    /**
     * @throws NullPointerException      if array is null
     * @throws IndexOutOfBoundsException unless {@code 0 <= offset <= offset + count <= array.length},
     *                                   overflow included
     */
    static void check(Object array, int offset, int count) {
        Objects.checkFromIndexSize(offset, count, Array.getLength(Objects.requireNonNull(array, "array")));
    }
}
