package org.jiobench.workloads;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.jiobench.bulk.BulkDataInput;
import org.jiobench.bulk.BulkDataOutput;

/**
 * The rank's array of one transfer, or of a batch of small ones, of one primitive type. Each conversion is a plain loop over
 * elements [from, to) of the typed array, specialised per type, so an approach measures its own
 * cost and not a layer of indirection per element. The per-element loops ask the stonewall
 * between pieces ({@link ElementLoop}) and return where they stopped.
 */
public interface ElementArray {
    int length();

    /** The primitive array itself ({@code int[]}, ...), for APIs that take any array, such as MemorySegment.copy. */
    Object array();

    /** Sets elements [from, to) to the pattern values of global elements {@code firstElement} onwards. */
    void fill(int from, int to, long firstElement, long seed);

    /** The bits element i holds, as its type's raw bits (for verification, which compares bits). */
    long bits(int i);

    /** One {@code DataOutput.writeX} call per element: the data-stream approaches. */
    int writeEach(DataOutput out, int from, int to, Stonewall stonewall) throws IOException;

    /** One {@code DataInput.readX} call per element. */
    int readEach(DataInput in, int from, int to, Stonewall stonewall) throws IOException;

    /** Explicit shift-and-mask conversion to big-endian bytes (paper 3.2); element i goes to bytes[i * size]. */
    int encode(byte[] bytes, int from, int to, Stonewall stonewall);

    int decode(byte[] bytes, int from, int to, Stonewall stonewall);

    /** Elements [from, to) in one call: the paper's bulk extension (section 5). */
    void writeArray(BulkDataOutput out, int from, int to) throws IOException;

    void readArray(BulkDataInput in, int from, int to) throws IOException;

    /** Bulk copy of elements [from, to) into a big-endian buffer at the buffer's position, through the JDK's typed views. */
    void putInto(ByteBuffer buffer, int from, int to);

    void getFrom(ByteBuffer buffer, int from, int to);
}
