package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WireTest {
    @Test
    void aStopExitsWith128AndItsSignalAndAStopOfNoKnownSignalIsAFailure() {
        assertEquals(143, Wire.stopped("SIGTERM"));
        assertEquals(130, Wire.stopped("SIGINT"));
        assertEquals(129, Wire.stopped("SIGHUP"));
        assertEquals(Wire.FAILED, Wire.stopped(null));
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
