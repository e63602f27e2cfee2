package org.jiobench.workloads;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.jiobench.bulk.AlignedBuffers;
import org.jiobench.bulk.ArrayPlacement;

/**
 * The one array of a rank, in the form its approach moves it: one transfer, or a batch of small
 * transfers one after the other (slots), so that the runner prepares and checks many at once with
 * its clock stopped. A write's data comes from the typed array through the JDK's typed views; a
 * read's data is checked against {@link ExpectedData}, which shares no code with them.
 */
public final class TransferBuffer {
    private final DataForm form;
    private final ElementType type;
    private final int size;
    private final int slots;
    private final long seed;
    private final ByteOrder order;
    private ElementArray elements;
    private byte[] bytes;
    private final ByteBuffer direct;
    private final byte[] expectedBytes;
    private final byte[] directImage;

    /** Bytes a batch of small transfers holds at most. */
    public static final int BATCH_BYTES = 64 * 1024;
    /** Arrays allocated beside one that lies badly before settling for it. */
    private static final int PLACEMENT_TRIES = 3;

    /** A buffer of one transfer. */
    public TransferBuffer(DataForm form, ElementType type, int transferSize, long seed, ByteOrder order) {
        this(form, type, transferSize, 1, seed, order);
    }

    /**
     * @param slots the transfers it holds one after the other
     * @param order the byte order of the file, which the BYTES and DIRECT forms hold
     */
    public TransferBuffer(DataForm form, ElementType type, int transferSize, int slots, long seed, ByteOrder order) {
        if (transferSize % type.bytes() != 0) {
            throw new IllegalArgumentException("transfer size " + transferSize + " is not a multiple of the "
                    + type.id() + " size " + type.bytes());
        }
        this.form = form;
        this.type = type;
        this.size = transferSize;
        this.slots = slots;
        this.seed = seed;
        this.order = order;
        int capacity = Math.multiplyExact(transferSize, slots);
        // Calibration moves no data: it gets no array to fill.
        this.elements = type.newArray(form == DataForm.NONE ? 0 : capacity / type.bytes());
        boolean offHeap = form == DataForm.DIRECT || form == DataForm.NATIVE;
        this.bytes = form == DataForm.BYTES ? new byte[capacity] : null;
        this.direct = offHeap ? AlignedBuffers.pageAligned(capacity).order(memoryOrder()) : null;
        this.expectedBytes = form == DataForm.BYTES || offHeap ? new byte[transferSize] : null;
        this.directImage = offHeap ? new byte[transferSize] : null;
    }

    /**
     * Where the array an approach of form TYPED or BYTES moves lies in its 4 KiB page, moved first
     * where a page-aligned read's copy into it would crawl ({@link ArrayPlacement}). A C program's
     * buffer is page-aligned; a Java array lies wherever the collector put it, and G1 starts an
     * array that opens a region 16 bytes into its page, the slow place on some processors. So that
     * an approach's figure does not hang on that draw (it fell to a quarter, and it changed with
     * an approach's place in {@code -a}), a badly placed array is swapped for a new one, allocated
     * while it is still held so that it lands elsewhere: under G1 the next array of the region, 16
     * bytes on. A humongous array opens a region of its own every time and stays where it is.
     * Called between phases, with the clock stopped; every phase fills or overwrites the array.
     *
     * @return the page offset of the array the approach moves, or -1 where it moves no heap array
     */
    public int placeForKernelCopy() {
        if (movedArray() == null) return -1;
        int offset = ArrayPlacement.pageOffset(movedArray());
        ElementArray firstElements = elements;
        byte[] firstBytes = bytes;
        List<Object> held = new ArrayList<>();
        while (!clearOfSlowCopy(offset) && held.size() < PLACEMENT_TRIES && roomFor(capacity())) {
            held.add(movedArray());
            if (form == DataForm.TYPED) elements = type.newArray(elements.length()); else bytes = new byte[bytes.length];
            offset = ArrayPlacement.pageOffset(movedArray());
        }
        if (!clearOfSlowCopy(offset)) {
            elements = firstElements;
            bytes = firstBytes;
            offset = ArrayPlacement.pageOffset(movedArray());
        }
        return offset;
    }

    /** Whether a page-aligned read's copy into an array at this page offset keeps its pace. */
    public static boolean clearOfSlowCopy(int pageOffset) {
        return !ArrayPlacement.kernelCopyCrawls(pageOffset, 0);
    }

    private Object movedArray() {
        return switch (form) {
            case TYPED -> elements.length() > 0 ? elements.array() : null;
            case BYTES -> bytes;
            default -> null;
        };
    }

    /** Whether the heap holds another array of this many bytes with as many to spare. */
    private static boolean roomFor(long bytes) {
        Runtime runtime = Runtime.getRuntime();
        return runtime.maxMemory() - (runtime.totalMemory() - runtime.freeMemory()) > 2 * bytes;
    }

    /** The transfers a batch holds: as many as fit in {@link #BATCH_BYTES}, one at least, no more than the plan has. */
    public static int batchSlots(long transferSize, int transfers) {
        return (int) Math.max(1, Math.min(transfers, BATCH_BYTES / transferSize));
    }

    public DataForm form() {
        return form;
    }

    /**
     * Bytes a buffer of this form holds, on the heap and in native memory together: the typed
     * array, the byte image or native buffer of its form, and what verification compares with.
     */
    public static long footprint(DataForm form, int transferSize) {
        return switch (form) {
            case NONE -> 0;
            case TYPED -> transferSize;
            case BYTES -> 3L * transferSize;
            case DIRECT, NATIVE -> 4L * transferSize;
        };
    }

    /** Bytes of one transfer. */
    public int size() {
        return size;
    }

    /** Transfers it holds one after the other. */
    public int slots() {
        return slots;
    }

    /** Bytes it holds: {@code slots() * size()}, what an approach's own copy of the array must hold. */
    public int capacity() {
        return slots * size;
    }

    /** Bytes of one element: every partial transfer ends on a multiple of it. */
    public int elementSize() {
        return type.bytes();
    }

    /** A piece of about {@code requested} bytes that a transfer moves at a time: whole elements, one at least, the transfer at most. */
    public int piece(int requested) {
        int size = elementSize();
        return Math.max(size, Math.min(size(), requested / size * size));
    }

    public ElementType type() {
        return type;
    }

    /** The typed array, for approaches of form TYPED (and as the source of the other forms). */
    public ElementArray elements() {
        return elements;
    }

    /** The file's image, for approaches of form BYTES. */
    public byte[] bytes() {
        if (bytes == null) throw new IllegalStateException("a " + form + " buffer has no byte[]");
        return bytes;
    }

    /** The native buffer, for approaches of form DIRECT (the file's image) and NATIVE (the machine's order). */
    public ByteBuffer direct() {
        if (direct == null) throw new IllegalStateException("a " + form + " buffer has no direct buffer");
        return direct;
    }

    /** The order of the bytes the buffer holds: the machine's for NATIVE, the file's otherwise. */
    private ByteOrder memoryOrder() {
        return form == DataForm.NATIVE ? ByteOrder.nativeOrder() : order;
    }

    /** Fills the buffer with the pattern of the transfer whose first global element is given. */
    public void prepare(long firstElement) {
        prepare(0, firstElement);
    }

    /** Fills one slot with the pattern of the transfer whose first global element is given. */
    public void prepare(int slot, long firstElement) {
        int from = slot * size / type.bytes();
        int to = from + size / type.bytes();
        elements.fill(from, to, firstElement, seed);
        switch (form) {
            case BYTES -> elements.putInto(ByteBuffer.wrap(bytes).order(order).position(slot * size), from, to);
            case DIRECT, NATIVE -> elements.putInto(direct.clear().position(slot * size), from, to);
            default -> { }
        }
    }

    /**
     * Compares bytes [0, end) of what the last read delivered with the pattern.
     *
     * @return the offset within the transfer of the first wrong byte, or -1 when all are right
     */
    public int firstWrongByte(long firstElement, int end) {
        return firstWrongByte(0, firstElement, end);
    }

    /** The whole transfer. */
    public int firstWrongByte(long firstElement) {
        return firstWrongByte(firstElement, size());
    }

    /** Compares bytes [0, end) of one slot with the pattern of the transfer whose first global element is given. */
    public int firstWrongByte(int slot, long firstElement, int end) {
        return firstWrongByte(slot, firstElement, end, null, 0);
    }

    /**
     * The same for transfer k of a plan, skipping the comparison when the slot holds the whole
     * transfer in bytes and {@code verified} found it right before with the same checksums; a
     * transfer found right is remembered there. A typed array is always compared element by element.
     */
    public int firstWrongByte(int slot, long firstElement, int end, VerifiedTransfers verified, int k) {
        long checksum = 0;
        if (verified != null && end == size && form != DataForm.TYPED && form != DataForm.NONE) {
            checksum = form == DataForm.BYTES ? verified.checksum(bytes, slot * size, size)
                    : verified.checksum(direct.duplicate().limit((slot + 1) * size).position(slot * size));
            if (verified.known(k, checksum)) return -1;
        }
        int wrong = compare(slot, firstElement, end);
        if (wrong < 0 && checksum != 0) verified.remember(k, checksum);
        return wrong;
    }

    private int compare(int slot, long firstElement, int end) {
        int at = slot * size;
        return switch (form) {
            case TYPED -> ExpectedData.firstWrongByte(type, firstElement, seed, order, elements, at / type.bytes(),
                    end);
            case BYTES -> ExpectedData.firstWrongByte(type, firstElement, seed, order, bytes, at, expectedBytes, end);
            case DIRECT, NATIVE -> {
                direct.get(at, directImage, 0, end);
                yield ExpectedData.firstWrongByte(type, firstElement, seed, memoryOrder(), directImage, 0,
                        expectedBytes, end);
            }
            case NONE -> throw new IllegalStateException("a NONE buffer holds no data to verify");
        };
    }
}
