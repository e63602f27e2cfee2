package org.jiobench.bulk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.junit.jupiter.api.Test;

/** The stream pair over byte arrays, where size() can be checked against every byte written. */
class BulkDataStreamsTest extends BulkDataContractTest {

    private ByteArrayOutputStream written;

    @Override
    BulkDataOutput openOutput(BufferPolicy policy) {
        written = new ByteArrayOutputStream();
        return new BulkDataOutputStream(written, policy);
    }

    @Override
    byte[] closeAndGetWritten(BulkDataOutput out) throws IOException {
        BulkDataOutputStream stream = (BulkDataOutputStream) out;
        stream.close();
        assertEquals(written.size(), stream.size(), "size()");
        return written.toByteArray();
    }

    @Override
    BulkDataInput openInput(byte[] content, BufferPolicy policy) {
        return new BulkDataInputStream(new ByteArrayInputStream(content), policy);
    }

    @Test
    void sizeCountsSingleAndBulkWrites() throws IOException {
        BulkDataOutputStream out = new BulkDataOutputStream(OutputStream.nullOutputStream());
        out.writeInt(1);
        out.writeArray(new double[3]);
        out.writeArray(new char[5], 1, 3);
        out.writeArray(new byte[7]);
        out.writeBoolean(true);
        assertEquals(4 + 24 + 6 + 7 + 1, out.size());
    }

    /** A stream may hand out fewer bytes than asked for; the bulk read must go on until it has them all. */
    @Test
    void readsFromAStreamThatGivesOneByteAtATime() throws IOException {
        long[] values = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE};
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new BulkDataOutputStream(bytes).writeArray(values);
        InputStream trickle = new FilterInputStream(new ByteArrayInputStream(bytes.toByteArray())) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return super.read(b, off, Math.min(len, 1));
            }
        };
        long[] read = new long[6];
        BulkDataInputStream in = new BulkDataInputStream(trickle, new BufferPolicy(16, true));
        assertThrows(EOFException.class, () -> in.readArray(read));
        assertArrayEquals(new long[] {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE, 0}, read);
    }

    @Test
    void errorsOfTheWrappedStreamComeThrough() {
        OutputStream failing = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("disk on fire");
            }
        };
        BulkDataOutputStream out = new BulkDataOutputStream(failing);
        IOException e = assertThrows(IOException.class, () -> out.writeArray(new int[] {1}));
        assertEquals("disk on fire", e.getMessage());
    }
}
