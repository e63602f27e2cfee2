package org.jiobench.runner;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One rank's account of one phase (docs/run-file.md, per_rank). Times are seconds of this rank's
 * own monotonic clock since it left the phase's barrier, with the untimed work (filling the array
 * before a write, checking it after a read) taken out.
 *
 * @param bookkeepingSeconds what the runner's own loop costs of transferSeconds, measured with
 *                           transfers that move nothing (an estimate, not taken out)
 * @param stalledSeconds   how long of transferSeconds the whole JVM stood still ({@link Stalls}: stopped,
 *                         starved, swapped out), left in the figures, which count it
 * @param stonewallBytes   with wear-out, the bytes moved when the deadline stopped the rank (else null)
 * @param stonewallSeconds with wear-out, the time at which it stopped (else null)
 * @param arrayPageOffset  where the heap array the approach moved started in its 4 KiB page (null
 *                         where it moves none: native buffers are page-aligned)
 * @param arrayCopyCrawls  whether a page-aligned read's copy into it crawls there (null likewise)
 */
record RankRecord(
        String approach,
        String op,
        int fork,
        int rep,
        boolean warmup,
        int rank,
        long bytes,
        int transfers,
        @JsonProperty("open_s") double openSeconds,
        @JsonProperty("transfer_s") double transferSeconds,
        @JsonProperty("close_s") double closeSeconds,
        @JsonProperty("elapsed_s") double elapsedSeconds,
        @JsonProperty("bookkeeping_s") double bookkeepingSeconds,
        @JsonProperty("stalled_s") double stalledSeconds,
        boolean stonewalled,
        @JsonProperty("stonewall_bytes") Long stonewallBytes,
        @JsonProperty("stonewall_s") Double stonewallSeconds,
        Boolean verified,
        String error,
        @JsonProperty("array_page_offset") Integer arrayPageOffset,
        @JsonProperty("array_copy_crawls") Boolean arrayCopyCrawls) {

    /** The same record after the written data was read back and checked. */
    RankRecord checked(String checkError) {
        return new RankRecord(approach, op, fork, rep, warmup, rank, bytes, transfers, openSeconds, transferSeconds,
                closeSeconds, elapsedSeconds, bookkeepingSeconds, stalledSeconds, stonewalled, stonewallBytes,
                stonewallSeconds, checkError == null, checkError, arrayPageOffset, arrayCopyCrawls);
    }
}
