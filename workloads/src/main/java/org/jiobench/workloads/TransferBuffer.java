package org.jiobench.workloads;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.jiobench.bulk.AlignedBuffers;

/**
 * The one array of a rank, transferSize bytes, in the form its approach moves it. Preparing it
 * for a write and checking it after a read both go through the big-endian byte image, so every
 * form is verified byte for byte against the same expectation.
 */
public final class TransferBuffer {
    private final DataForm form;
    private final long seed;
    private final ElementArray elements;
    private final byte[] bytes;
    private final ByteBuffer direct;
    private final ElementArray expectedElements;
    private final byte[] expectedBytes;
    private final byte[] actualImage;

    public TransferBuffer(DataForm form, ElementType type, int transferSize, long seed) {
        if (transferSize % type.bytes() != 0) {
            throw new IllegalArgumentException("transfer size " + transferSize + " is not a multiple of the "
                    + type.id() + " size " + type.bytes());
        }
        this.form = form;
        this.seed = seed;
        int length = transferSize / type.bytes();
        this.elements = type.newArray(length);
        this.bytes = form == DataForm.BYTES ? new byte[transferSize] : null;
        this.direct = form == DataForm.DIRECT ? AlignedBuffers.pageAligned(transferSize) : null;
        this.expectedElements = type.newArray(length);
        this.expectedBytes = new byte[transferSize];
        this.actualImage = form == DataForm.BYTES ? bytes : new byte[transferSize];
    }

    public DataForm form() {
        return form;
    }

    public int size() {
        return expectedBytes.length;
    }

    /** The typed array, for approaches of form TYPED (and as the source of the other forms). */
    public ElementArray elements() {
        return elements;
    }

    /** The big-endian image, for approaches of form BYTES. */
    public byte[] bytes() {
        if (bytes == null) throw new IllegalStateException("a " + form + " buffer has no byte[]");
        return bytes;
    }

    /** The native buffer, for approaches of form DIRECT. */
    public ByteBuffer direct() {
        if (direct == null) throw new IllegalStateException("a " + form + " buffer has no direct buffer");
        return direct;
    }

    /** Fills the buffer with the pattern of the transfer whose first global element is given. */
    public void prepare(long firstElement) {
        elements.fill(firstElement, seed);
        switch (form) {
            case BYTES -> elements.encode(bytes);
            case DIRECT -> elements.putInto(direct.clear());
            default -> { }
        }
    }

    /**
     * Compares what the last read delivered with the pattern.
     *
     * @return the offset within the transfer of the first wrong byte, or -1 when all are right
     */
    public int firstWrongByte(long firstElement) {
        expectedElements.fill(firstElement, seed);
        expectedElements.encode(expectedBytes);
        return Arrays.mismatch(actualBytes(), expectedBytes);
    }

    private byte[] actualBytes() {
        switch (form) {
            case DIRECT -> direct.clear().get(actualImage);
            case TYPED -> elements.encode(actualImage);
            case NONE -> throw new IllegalStateException("a NONE buffer holds no data to verify");
            default -> { }
        }
        return actualImage;
    }
}
