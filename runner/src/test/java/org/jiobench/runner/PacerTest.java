package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jiobench.workloads.Stonewall;
import org.junit.jupiter.api.Test;

/** The stonewall of a phase on a clock the test moves by hand. */
class PacerTest {
    private final AtomicLong now = new AtomicLong();
    private final AtomicBoolean stop = new AtomicBoolean();

    private Pacer pacer(Deadline deadline) {
        return new Pacer(deadline, now::get, stop::get);
    }

    @Test
    void theDeadlineIsReachedOnThePhasesClock() {
        Pacer pacer = pacer(new Deadline(1, false));
        now.set(999_999_999);
        assertFalse(pacer.reached());
        assertEquals(1, pacer.nanosLeft());
        now.set(1_000_000_000);
        assertTrue(pacer.reached());
        assertEquals(0, pacer.nanosLeft());
    }

    @Test
    void withoutADeadlineOnlyAStopRequestEndsThePhase() {
        Pacer pacer = pacer(Deadline.NONE);
        now.set(Long.MAX_VALUE / 2);
        assertFalse(pacer.reached());
        assertEquals(Long.MAX_VALUE, pacer.nanosLeft());
        stop.set(true);
        assertTrue(pacer.reached());
        assertEquals(0, pacer.nanosLeft());
    }

    @Test
    void wearOutLiftsTheDeadlineButNotAStopRequest() {
        Pacer pacer = pacer(new Deadline(0.5, true));
        assertTrue(pacer.wearsOut());
        now.set(2_000_000_000);
        assertTrue(pacer.reached());
        pacer.liftDeadline();
        assertFalse(pacer.reached());
        assertEquals(Long.MAX_VALUE, pacer.nanosLeft());
        stop.set(true);
        assertTrue(pacer.reached());
    }

    @Test
    void slowPiecesShortenTheNextAndQuickOnesLetThemGrowBack() {
        Pacer pacer = pacer(Deadline.NONE);
        assertEquals(Pacer.FIRST_PIECE, pacer.elementsPerCheck());
        pacer.reached();
        now.addAndGet(4 * Pacer.PIECE_NANOS);
        pacer.reached();
        assertEquals(Pacer.FIRST_PIECE / 4, pacer.elementsPerCheck(), "a piece 4 times too slow: a quarter as long");
        for (int check = 0; check < 20; check++) {
            now.addAndGet(1);
            pacer.reached();
        }
        assertEquals(Stonewall.CHECK_INTERVAL, pacer.elementsPerCheck(), "quick pieces double up to the interval");
    }
}
