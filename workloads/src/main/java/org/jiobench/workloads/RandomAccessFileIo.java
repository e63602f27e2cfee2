package org.jiobench.workloads;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

/** The open file of the approaches built on {@link RandomAccessFile}, as the paper's section 3 uses it. */
abstract class RandomAccessFileIo implements TransferIo {
    /** One transfer's bytes [from, to) at an offset, given the open file; returns the end of what it moved. */
    @FunctionalInterface
    interface Transfer {
        int move(RandomAccessFile file, long fileOffset, int from, int to, Stonewall stonewall) throws IOException;
    }

    protected final RandomAccessFile file;

    RandomAccessFileIo(Path path, IoMode mode) throws IOException {
        this(new RandomAccessFile(path.toFile(), mode.randomAccessMode()));
    }

    RandomAccessFileIo(RandomAccessFile file) {
        this.file = file;
    }

    /** An open file whose transfers are one lambda. */
    static RandomAccessFileIo of(Path path, IoMode mode, Transfer transfer) throws IOException {
        return new RandomAccessFileIo(path, mode) {
            @Override
            public int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
                return transfer.move(file, fileOffset, from, to, stonewall);
            }
        };
    }

    @Override
    public void sync() throws IOException {
        file.getFD().sync();
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
