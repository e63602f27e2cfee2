package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvironmentTest {
    @Test
    void countsTheProcessorsOfALinuxCpuList() {
        assertEquals(1, Environment.cpuCount("0"));
        assertEquals(16, Environment.cpuCount("0-15"));
        assertEquals(7, Environment.cpuCount("0-3,8,10-11"));
    }

    @Test
    void readsTheCollectorAndG1sRegionFromHotSpotsOwnFlags() {
        // Were the flags unreadable, the collector would be named by its beans ("G1 Young
        // Generation, G1 Old Generation") and G1's region unknown.
        Map<String, Object> heap = Environment.heap(1 << 20);
        String collector = (String) heap.get("collector");
        assertTrue(Environment.COLLECTORS.containsValue(collector), collector);
        if (collector.equals("G1")) {
            long region = (Long) heap.get("region_bytes");
            assertTrue(region >= 1 << 20 && Long.bitCount(region) == 1, heap.toString());
        }
    }
}
