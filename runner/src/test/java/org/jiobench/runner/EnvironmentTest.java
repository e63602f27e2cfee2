package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
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
}
