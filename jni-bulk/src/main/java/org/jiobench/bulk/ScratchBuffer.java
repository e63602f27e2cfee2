package org.jiobench.bulk;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

/** The temporary buffer of one bulk object, kept or made afresh as its {@link BufferPolicy} says. */
final class ScratchBuffer<B> {

    private final BufferPolicy policy;
    private final IntFunction<B> allocate;
    private final ToIntFunction<B> capacity;
    private B kept;

    private ScratchBuffer(BufferPolicy policy, IntFunction<B> allocate, ToIntFunction<B> capacity) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.allocate = allocate;
        this.capacity = capacity;
    }

    static ScratchBuffer<byte[]> onHeap(BufferPolicy policy) {
        return new ScratchBuffer<>(policy, byte[]::new, bytes -> bytes.length);
    }

    /** Direct, so that C can pass its memory to pread and pwrite; page-aligned, so the kernel copies fast. */
    static ScratchBuffer<ByteBuffer> direct(BufferPolicy policy) {
        return new ScratchBuffer<>(policy, AlignedBuffers::pageAligned, ByteBuffer::capacity);
    }

    /** A buffer for moving {@code bytes} bytes (more than zero): all of them, or chunks of the policy's bound. */
    B forTransfer(long bytes) {
        int size = (int) Math.min(bytes, policy.chunkBytes());
        if (!policy.recycle()) {
            return allocate.apply(size);
        }
        if (kept == null || capacity.applyAsInt(kept) < size) {
            kept = allocate.apply(size);
        }
        return kept;
    }

    /** Lets go of a kept buffer (a direct one is native memory, freed once it is collected). */
    void release() {
        kept = null;
    }
}
