package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WireTest {
    @Test
    void aStopExitsWith128AndItsSignalAndAStopOfNoKnownSignalIsAFailure() {
        assertEquals(143, ExitCode.stopped("SIGTERM"));
        assertEquals(130, ExitCode.stopped("SIGINT"));
        assertEquals(129, ExitCode.stopped("SIGHUP"));
        assertEquals(ExitCode.FAILED.code, ExitCode.stopped(null));
    }

    @Test
    void tasksReadAsTheLaunchersWriteThem() {
        assertEquals(Task.FIRST, Wire.task("first"));
        assertEquals(new Task(false, 2, 5, Set.of()), Wire.task("2:5:"));
        assertEquals(new Task(false, 1, 0, Set.of(new FileIdentity(2049, 17), new FileIdentity(2049, 18))),
                Wire.task("1:0:2049.17+2049.18"));
        assertEquals(new Task(false, 3, 1, Set.of()), Wire.taskOption(new String[] {"--task=3:1:", "-a", "all"}));
        assertEquals(Task.FIRST, Wire.taskOption(new String[] {"-a", "all"}));
    }

    @ParameterizedTest(name = "hosts {0}")
    @CsvSource({
        "0*2.1*2, 4, 0 0 1 1",
        "0.1.0.1, 4, 0 1 0 1",
        "0*3.1, 4, 0 0 0 1",
        "0*4, 4, 0 0 0 0",
        "3, 1, 3",
    })
    void theLaunchersControlNamesEachRanksHostInRuns(String runs, int size, String expected) throws IOException {
        int[] hosts = Arrays.stream(expected.split(" ")).mapToInt(Integer::parseInt).toArray();
        assertArrayEquals(hosts, Wire.control("1," + size + "," + runs + ",0,1,first").hostOfRank());
    }

    @ParameterizedTest(name = "{0} of {1} ranks")
    @CsvSource({"0*3, 4", "0*2.1*3, 4", "0*0.1*4, 4"})
    void hostsThatAreNotOnePerRankAreRefused(String runs, int size) {
        assertThrows(IOException.class, () -> Wire.hostsOf(runs, size));
    }

    @Test
    void aControlThatIsNotOneIsSaidAsSuch() {
        assertThrows(IOException.class, () -> Wire.control("1,2,0*2,3,4"));
        assertThrows(IOException.class, () -> Wire.control("1,2,0*2,3,4,5:x:"));
    }

    @Test
    void takesJiobenchsOwnOptionsApartFromTheUsers() {
        List<String> args = new ArrayList<>(List.of("-XX:ActiveProcessorCount=2", "-XX:ErrorFile=/tmp/e_%p.log",
                "-D" + Wire.OWN_OPTIONS_PROPERTY + "=2", "-Xmx1g", "-XX:ActiveProcessorCount=4"));
        assertEquals(List.of("-XX:ActiveProcessorCount=2", "-XX:ErrorFile=/tmp/e_%p.log"), Wire.ownOptions(args));
        assertEquals(List.of("-Xmx1g", "-XX:ActiveProcessorCount=4"), args);
    }

    @Test
    void aRunnerStartedOtherwiseHasOnlyTheUsersOptions() {
        List<String> args = new ArrayList<>(List.of("-Xmx1g", "-D" + Wire.OWN_OPTIONS_PROPERTY + "=x"));
        assertEquals(List.of(), Wire.ownOptions(args));
        assertEquals(List.of("-Xmx1g", "-D" + Wire.OWN_OPTIONS_PROPERTY + "=x"), args);
    }

    @Test
    void aRefusalOfSeveralRanksNamesWhichRankSaidEachMessage() {
        Map<String, Object> refused = Wire.refused(List.of(1, 3), List.of("too short", "too short"));
        assertEquals("{\"type\":\"error\",\"exit\":2,\"ranks\":[1,3],\"messages\":[\"too short\",\"too short\"]}",
                Json.line(refused));
        assertEquals("{\"type\":\"failed\",\"messages\":[\"disk full\"]}", Json.line(Wire.failed("disk full")));
    }

    @Test
    void aFileIdentityReadsAsStatGivesItUnsignedPastTwoToTheSixtyThree() {
        // A GlusterFS inode number, as Python's os.stat gives it.
        FileIdentity fuse = new FileIdentity(53, Long.parseUnsignedLong("11138347957301173392"));
        assertEquals("53.11138347957301173392", Wire.identityText(fuse));
        assertEquals(fuse, Wire.identity("53.11138347957301173392"));
    }

    @Test
    void everyRanksRecordsAreOnePhaseMessage() {
        assertEquals("{\"type\":\"phase\",\"records\":[{\"rank\":0},{\"rank\":1}]}",
                Wire.phaseOfEveryRank(List.of("{\"rank\":0}", "{\"rank\":1}")));
    }
}
