package org.jiobench.runner;

import java.nio.ByteOrder;
import org.jiobench.workloads.ElementType;

/**
 * What the file's elements are: their type, their byte order on disk, and the seed their values
 * (and a shuffled or random order of the transfers) are drawn from, which a read-only run must
 * repeat to find what the write left.
 */
record Elements(ElementType type, ByteOrder byteOrder, long seed) {
}
