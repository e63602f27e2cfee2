package org.jiobench.workloads;

/**
 * Where an approach keeps the array it moves: what the runner fills before each write and checks
 * after each read, outside the timed interval.
 */
public enum DataForm {
    /** A typed Java array ({@code int[]}, ...): conversion to bytes is part of the approach's cost. */
    TYPED,
    /** A byte[] already holding the file's image: the paper's "data is already bytes". */
    BYTES,
    /** A direct (native) buffer holding the file's image. */
    DIRECT,
    /** A direct buffer holding the elements in the machine's own byte order: a C program's typed array. */
    NATIVE,
    /** No data at all (calibration). */
    NONE
}
