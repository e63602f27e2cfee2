package org.jiobench.runner;

import org.jiobench.workloads.DataForm;
import org.jiobench.workloads.IoMode;
import org.jiobench.workloads.TransferBuffer;

/**
 * Checks what a read phase delivered into the rank's array against the data pattern, batch by
 * batch, and keeps the first wrong byte as the phase's error. The caller stops the phase's clock
 * around each check: verification is never inside a timed interval.
 */
final class Verifier {
    private final Phase phase;
    private final TransferBuffer buffer;
    private final boolean checks;
    private String error;

    /** @param verify whether the run verifies (--verify); a write's file is checked after the phase instead */
    Verifier(Phase phase, TransferBuffer buffer, boolean verify) {
        this.phase = phase;
        this.buffer = buffer;
        this.checks = verify && phase.mode() == IoMode.READ && buffer.form() != DataForm.NONE;
    }

    /** Whether this phase's data is checked at all. */
    boolean checks() {
        return checks;
    }

    /** Checks the {@code moved} bytes that a read delivered into slots 0.. for transfers from {@code first}. */
    void check(int first, int moved) {
        if (!checks || error != null) return;
        int size = buffer.size();
        for (int slot = 0; slot * size < moved && error == null; slot++) {
            int k = first + slot;
            int wrong = buffer.firstWrongByte(slot, phase.firstElements()[k], Math.min(size, moved - slot * size),
                    phase.verified(), k);
            if (wrong >= 0) error = Verification.describe(phase.file(), phase.offsets()[k] + wrong);
        }
    }

    /** Where the first wrong byte was, or null. */
    String error() {
        return error;
    }

    /** Whether what the phase moved was right; null when nothing was checked (nothing moved is nothing verified). */
    Boolean verified(long moved) {
        return checks && moved > 0 ? error == null : null;
    }
}
