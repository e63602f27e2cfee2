package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvironmentTest {
    @Test
    void takesJiobenchsOwnOptionsApartFromTheUsers() {
        List<String> args = new ArrayList<>(List.of("-XX:ActiveProcessorCount=2", "-XX:ErrorFile=/tmp/e_%p.log",
                "-D" + Environment.OWN_OPTIONS_PROPERTY + "=2", "-Xmx1g", "-XX:ActiveProcessorCount=4"));
        assertEquals(List.of("-XX:ActiveProcessorCount=2", "-XX:ErrorFile=/tmp/e_%p.log"), Environment.ownOptions(args));
        assertEquals(List.of("-Xmx1g", "-XX:ActiveProcessorCount=4"), args);
    }

    @Test
    void aRunnerStartedOtherwiseHasOnlyTheUsersOptions() {
        List<String> args = new ArrayList<>(List.of("-Xmx1g", "-D" + Environment.OWN_OPTIONS_PROPERTY + "=x"));
        assertEquals(List.of(), Environment.ownOptions(args));
        assertEquals(List.of("-Xmx1g", "-D" + Environment.OWN_OPTIONS_PROPERTY + "=x"), args);
    }

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
