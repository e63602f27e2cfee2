package org.jiobench.workloads;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

/** The open file of the approaches built on {@link RandomAccessFile}, as the paper's section 3 uses it. */
abstract class RandomAccessFileIo implements TransferIo {
    /** One transfer at an offset, given the open file. */
    @FunctionalInterface
    interface Transfer {
        void move(RandomAccessFile file, long fileOffset) throws IOException;
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
            public void transfer(long fileOffset) throws IOException {
                transfer.move(file, fileOffset);
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
