package org.jiobench.runner;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The remedies against numbers that flatter: each one the run file records, as docs/approaches.md
 * (Honest numbers) says.
 *
 * @param fsync         fsync after the write transfers, inside the timed interval (IOR's -e)
 * @param dropCache     drop the file's cached pages before each read phase, untimed
 * @param reorderOffset how many ranks over a reordered read looks (IOR's -Q); 0: chosen from the hosts
 * @param readBlockOf   with -C (IOR's reorder), by rank, the rank whose block it reads ({@link Reorder});
 *                      null without
 * @param direct        open the file with O_DIRECT
 * @param verify        check every byte read, and read back every byte written, untimed
 */
record Honesty(boolean fsync, boolean dropCache, int reorderOffset, List<Integer> readBlockOf, boolean direct,
               boolean verify) {
    /**
     * File systems whose clients may keep data that another node has since rewritten: FUSE's
     * (GlusterFS's client read the old contents for 1.2-2 s after another node's rewrite) and NFS's
     * (a client looks again only at open, and only as far as its attribute cache and the server's
     * timestamps let it see a change). The runner writes the same bytes every repetition, so
     * --verify cannot tell.
     */
    private static final Pattern NOT_COHERENT = Pattern.compile("fuse(\\..+)?|nfs4?");

    boolean reorder() {
        return readBlockOf != null;
    }

    /**
     * Refuses -C where a read of another node's block may come from this node's cache all the same,
     * unless --drop-cache empties that cache before each read.
     */
    void checkReorderHonest(String filesystemType, Path directory) throws UsageError {
        if (!reorder() || dropCache || filesystemType == null || !NOT_COHERENT.matcher(filesystemType).matches()) {
            return;
        }
        throw new UsageError("-C on " + filesystemType + " (" + directory + ") needs --drop-cache: its clients may "
                + "keep what they cached of a block another node has since rewritten, and read it from there");
    }
}
