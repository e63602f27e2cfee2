package org.jiobench.runner;

import java.nio.file.Path;

/**
 * The layout a run asks for the files it creates, on the file systems that lay each file out
 * over their servers: Lustre (its stripes over OSTs, {@link LustreLayout}) and CephFS (its objects
 * over OSDs, {@link CephLayout}). The file's owner lays it out before any rank opens it: rank 0 the
 * shared file, each rank its own with -F. Elsewhere the options are refused, or ignored when the
 * user says so (the run then says it did).
 *
 * @param count      stripes (-1: every OST or OSD; 0: the directory's)
 * @param size       bytes per stripe (0: the directory's)
 * @param objectSize CephFS: bytes per object (0: from the stripe size, see {@link CephLayout#objectSize()})
 * @param ignore     run without striping on a file system that has none, instead of refusing
 */
record Striping(int count, long size, long objectSize, boolean ignore) {
    /** Lustre's stripe sizes and CephFS's stripe units are multiples of this. */
    static final long SIZE_UNIT = 64 * 1024;
    /**
     * Lustre's stripe sizes and CephFS's stripe units and object sizes are held in 32 bits: each
     * is under this (CephFS refuses an object size of 4GiB itself, Invalid argument).
     */
    static final long SIZE_LIMIT = 4L << 30;

    boolean asked() {
        return count != 0 || size > 0 || objectSize > 0;
    }

    /**
     * How the file system under {@code directory} takes this layout: null when none is asked for,
     * or when --stripe-ignore says to run without it where it cannot.
     */
    FileLayout on(String filesystemType, Path directory) throws UsageError {
        if (!asked()) return null;
        if ("lustre".equals(filesystemType)) {
            if (objectSize > 0) {
                throw new UsageError("--object-size lays out a CephFS file, but " + directory
                        + " is on Lustre, whose objects are its stripes: --stripe-size sets them");
            }
            return new LustreLayout(this);
        }
        if (CephLayout.TYPES.contains(filesystemType)) return new CephLayout(this);
        if (ignore) return null;
        throw new UsageError("--stripe-count, --stripe-size and --object-size set a Lustre or CephFS layout, but "
                + directory + " is on " + filesystemType + " (pass --stripe-ignore to run without striping)");
    }
}
