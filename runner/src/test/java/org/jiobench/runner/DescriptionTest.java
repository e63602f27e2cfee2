package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jiobench.workloads.Approaches;
import org.junit.jupiter.api.Test;

/** --describe, read back as the Python verbs read it. */
class DescriptionTest {
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private JsonNode describe(String... args) throws Exception {
        PrintStream stdout = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            int code = Main.run(args, new SoloWorld(stdout, new PrintStream(err, true, StandardCharsets.UTF_8)));
            assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(stdout);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(1, printed.lines().count(), "one JSON line and nothing else: " + printed);
        return new ObjectMapper().readTree(printed);
    }

    private static JsonNode byKey(JsonNode entries, String key, String value) {
        for (JsonNode entry : entries) {
            if (entry.get(key).asText().equals(value)) return entry;
        }
        throw new AssertionError(value + " is not described");
    }

    @Test
    void everyApproachOfTheRegistryWithItsGroupsOptionsAndWhetherItReadsInPlace() throws Exception {
        JsonNode described = describe("--describe");
        List<String> ids = new ArrayList<>();
        described.get("approaches").forEach(approach -> ids.add(approach.get("id").asText()));
        assertEquals(Approaches.all().stream().map(approach -> approach.id()).toList(), ids);

        JsonNode bulkJni = byKey(described.get("approaches"), "id", "bulk-jni");
        assertTrue(bulkJni.get("reads_in_place").asBoolean());
        assertEquals("[\"paper\",\"xu-guo\",\"all\"]", bulkJni.get("groups").toString());
        assertEquals("always", byKey(bulkJni.get("options"), "name", "--bulk-jni.in-place").get("default").asText());
        // Told whether or not this JVM can run it: the Python side decides with it for any JVM.
        assertTrue(byKey(described.get("approaches"), "id", "ffm-pread").get("reads_in_place").asBoolean());
        assertFalse(byKey(described.get("approaches"), "id", "c-posix").get("reads_in_place").asBoolean());
        assertEquals(Approaches.groupNames().size(), described.get("groups").size());
    }

    @Test
    void runWideOptionsWithTheirShortNamesAndWhetherTheyTakeAValue() throws Exception {
        JsonNode options = describe("--describe").get("options");
        JsonNode blockSize = byKey(options, "name", "--block-size");
        assertEquals("[\"-b\"]", blockSize.get("short_names").toString());
        assertTrue(blockSize.get("takes_value").asBoolean());
        assertFalse(byKey(options, "name", "--fsync").get("takes_value").asBoolean());
        // A run-wide spelling of an approach's knob is the run's option; the knob itself is not.
        byKey(options, "name", "--buffer-size");
        options.forEach(option -> assertFalse(option.get("name").asText().contains("."), option.toString()));
    }

    @Test
    void theLimitsTheVerbsNeedAndNothingRuns() throws Exception {
        // Other options beside it are not checked and do not start a run, as with --help.
        JsonNode described = describe("--describe", "-b", "3MiB", "-t", "2MiB");
        assertEquals(RunCommand.AUTO_MIN_REPS, described.get("auto_min_repetitions").asInt());
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }
}
