package org.jiobench.workloads;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.jiobench.bulk.BulkDataInput;
import org.jiobench.bulk.BulkDataOutput;

/**
 * The rank's array of one transfer, of one primitive type. Each conversion is a plain loop over
 * the typed array, specialised per type, so an approach measures its own cost and not a layer of
 * indirection per element.
 */
public interface ElementArray {
    int length();

    /** Sets element i to the pattern value of global element {@code firstElement + i}. */
    void fill(long firstElement, long seed);

    /** One {@code DataOutput.writeX} call per element: the data-stream approaches. */
    void writeEach(DataOutput out) throws IOException;

    /** One {@code DataInput.readX} call per element. */
    void readEach(DataInput in) throws IOException;

    /** Explicit shift-and-mask conversion to big-endian bytes (paper 3.2). */
    void encode(byte[] bytes);

    void decode(byte[] bytes);

    /** The whole array in one call: the paper's bulk extension (section 5). */
    void writeArray(BulkDataOutput out) throws IOException;

    void readArray(BulkDataInput in) throws IOException;

    /** Bulk copy into a big-endian buffer at its position, through the JDK's typed views. */
    void putInto(ByteBuffer buffer);

    void getFrom(ByteBuffer buffer);
}
