package org.jiobench.workloads;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import org.jiobench.bulk.ArrayPlacement;

/**
 * What C does, written in Java (JDK 22+): the C library's pread and pwrite, called through the
 * Foreign Function &amp; Memory API on a segment of the array itself (critical downcalls with heap
 * access), so the kernel copies straight between the file and the array. Where the file's order
 * is not the machine's, a write swaps a piece at a time into a native segment with a loop that C2
 * vectorizes ({@link SwappedCopy}) and writes it from there, and a read lands in the array and is
 * swapped there, a piece at a time: c-swap's technique, with no C of its own. Where the array's
 * address would make the kernel's own copy crawl ({@link ArrayPlacement#kernelCopyCrawls}: a
 * humongous array under G1, for one), a read that swaps nothing lands a little further on and is
 * moved down to its place, and other transfers go through the native segment a piece at a time.
 */
public final class FfmPread implements Approach {
    static final ApproachOption PIECE_SIZE = ApproachOption.pieceSize(
            "Bytes swapped and moved by one system call where the byte order needs swapping");

    @Override public String id() { return Ffm.PREAD_ID; }

    @Override public String description() { return Ffm.PREAD_DESCRIPTION; }

    @Override public DataForm dataForm() { return DataForm.TYPED; }

    @Override public boolean readsInPlace() { return true; }

    @Override public List<ApproachOption> options() { return List.of(PIECE_SIZE); }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        int size = buffer.elementSize();
        int piece = buffer.piece(settings.size(this, PIECE_SIZE));
        Object array = buffer.elements().array();
        MemorySegment elements = heapSegment(array);
        boolean swap = settings.byteOrder() != ByteOrder.nativeOrder() && size > 1;
        SwappedCopy.Copier copier = swap ? SwappedCopy.loop(array) : null;
        boolean write = mode == IoMode.WRITE;
        LibcFile libc = new LibcFile(file, write);
        Arena arena = Arena.ofConfined();
        MemorySegment bounce = arena.allocate(piece, 4096);
        return new TransferIo() {
            @Override
            public int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
                long address = LibcFile.addressOf(elements.asSlice(from));
                boolean crawls = write ? ArrayPlacement.kernelCopyCrawls(fileOffset + from, address)
                        : ArrayPlacement.kernelCopyCrawls(address, fileOffset + from);
                if (!swap && !crawls) {
                    MemorySegment range = elements.asSlice(from, to - from);
                    if (write) libc.write(range, fileOffset + from); else libc.read(range, fileOffset + from);
                    return to;
                }
                // A read that needs no swap where the copy crawls lands `shift` bytes on, in the next
                // piece's place, and is moved down: one pass in the cache, where the native segment
                // would cost two. The last bytes of the range, with no room after them, go through it.
                int shift = write || swap ? 0 : ArrayPlacement.kernelCopyShift(address, fileOffset + from);
                for (int at = from, end; at < to; at = end) {
                    end = Math.min(to, at + piece);
                    MemorySegment staged = bounce.asSlice(0, end - at);
                    if (write) {
                        MemorySegment range = elements.asSlice(at, end - at);
                        if (swap) copier.store(at / size, bounce, (end - at) / size); else staged.copyFrom(range);
                        libc.write(staged, fileOffset + at);
                    } else if (shift > 0 && at < to - shift) {
                        end = Math.min(end, to - shift);
                        libc.read(elements.asSlice(at + shift, end - at), fileOffset + at);
                        MemorySegment.copy(elements, at + shift, elements, at, end - at);
                    } else if (crawls) {
                        libc.read(staged, fileOffset + at);
                        MemorySegment range = elements.asSlice(at, end - at);
                        if (swap) copier.load(bounce, at / size, (end - at) / size); else range.copyFrom(staged);
                    } else {
                        MemorySegment range = elements.asSlice(at, end - at);
                        libc.read(range, fileOffset + at);
                        SwappedCopy.swapInPlace(range, size);
                    }
                }
                return to;
            }

            @Override
            public void sync() throws IOException {
                libc.fsync();
            }

            @Override
            public void close() throws IOException {
                try {
                    libc.close();
                } finally {
                    arena.close();
                }
            }
        };
    }

    private static MemorySegment heapSegment(Object array) {
        return switch (array) {
            case byte[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            default -> throw new IllegalArgumentException("no segment of a " + array.getClass().getSimpleName());
        };
    }
}
