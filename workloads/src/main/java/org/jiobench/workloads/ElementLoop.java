package org.jiobench.workloads;

/**
 * Runs a per-element loop over elements [from, to) in pieces of {@link Stonewall#elementsPerCheck},
 * asking the stonewall between pieces. The pieces are the typed classes' own loops, so each type
 * keeps its specialised loop body.
 */
final class ElementLoop {
    @FunctionalInterface
    interface Piece<E extends Exception> {
        void run(int from, int to) throws E;
    }

    private ElementLoop() {
    }

    /** @return the end of the elements done: {@code to}, or less when the stonewall was reached */
    static <E extends Exception> int run(int from, int to, Stonewall stonewall, Piece<E> piece) throws E {
        int at = from;
        while (at < to) {
            int end = at + Math.min(stonewall.elementsPerCheck(), to - at);
            piece.run(at, end);
            at = end;
            if (at < to && stonewall.reached()) break;
        }
        return at;
    }
}
