package org.jiobench.runner;

/**
 * The stonewall: how long after its barrier a phase may move data.
 *
 * @param seconds 0 for none
 * @param wearOut after the deadline every rank goes on to the most any rank moved by then
 */
record Deadline(double seconds, boolean wearOut) {
    static final Deadline NONE = new Deadline(0, false);

    /** The deadline on the phase's clock; {@link Long#MAX_VALUE} for none. */
    long nanos() {
        return seconds > 0 ? Math.round(seconds * 1e9) : Long.MAX_VALUE;
    }
}
