package org.jiobench.runner;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whose block each rank reads under -C (IOR's reorder): one written on another node, so that the
 * reader's own cache cannot hold it from its own writes. IOR looks as many ranks over as a node
 * holds, which is another node only when the ranks are placed node by node in equal numbers; this
 * works from where each rank actually runs, which every world learns the same way, so all ranks of
 * a run get the same answer.
 */
final class Reorder {
    private Reorder() {
    }

    /**
     * @param hostOfRank each rank's host as a number: ranks of one number share a node
     * @param offset     -Q: read the block this many ranks over, wherever it was written; 0: choose
     *                   from the hosts
     * @return by rank, the rank whose block it reads
     */
    static List<Integer> readBlockOf(int[] hostOfRank, int offset) {
        int size = hostOfRank.length;
        int[] readBlockOf = new int[size];
        List<List<Integer>> hosts = ranksByHost(hostOfRank);
        if (offset > 0 || hosts.size() == 1) {
            // On one node there is no other to read from: the neighbour's block at least is not
            // one this rank wrote.
            int shift = offset > 0 ? offset : 1;
            for (int r = 0; r < size; r++) readBlockOf[r] = (r + shift) % size;
            return listOf(readBlockOf);
        }
        int[] order = hosts.stream().flatMap(List::stream).mapToInt(Integer::intValue).toArray();
        int largest = hosts.get(0).size();
        if (2 * largest <= size) {
            // Each host's ranks are consecutive in this order and no more than the shift, so the
            // shift takes every rank past the last of its host's; as a rotation it reads each
            // block once.
            for (int i = 0; i < size; i++) readBlockOf[order[i]] = order[(i + largest) % size];
        } else {
            // One host holds more than half the ranks, more than there are blocks written elsewhere:
            // its ranks take those blocks in turn, and the other ranks each take a different one of
            // its blocks, so that as many blocks as can be are read.
            int others = size - largest;
            for (int i = 0; i < largest; i++) readBlockOf[order[i]] = order[largest + i % others];
            for (int j = 0; j < others; j++) readBlockOf[order[largest + j]] = order[j];
        }
        return listOf(readBlockOf);
    }

    /** The ranks of each host, the hosts with most ranks first, ties in the order their first ranks come. */
    private static List<List<Integer>> ranksByHost(int[] hostOfRank) {
        Map<Integer, List<Integer>> byHost = new LinkedHashMap<>();
        for (int r = 0; r < hostOfRank.length; r++) byHost.computeIfAbsent(hostOfRank[r], host -> new ArrayList<>()).add(r);
        List<List<Integer>> hosts = new ArrayList<>(byHost.values());
        hosts.sort(Comparator.comparingInt((List<Integer> ranks) -> ranks.size()).reversed());
        return hosts;
    }

    private static List<Integer> listOf(int[] ranks) {
        return Arrays.stream(ranks).boxed().toList();
    }
}
