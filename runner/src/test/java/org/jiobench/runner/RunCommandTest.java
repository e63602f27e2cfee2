package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jiobench.workloads.Approaches;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The runner as a single rank, through its real command line. */
class RunCommandTest {
    @TempDir
    Path dir;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(args, new SoloWorld(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)));
    }

    private String errors() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theHelpOfApproachNamesEveryGroup() {
        String[] help = new CommandLine(new RunCommand(new SoloWorld(System.out, System.err))).getCommandSpec()
                .findOption("-a").description();
        assertEquals("Approach ids, or the groups " + String.join(", ", Approaches.groupNames())
                + " (comma-separated or repeated; default: paper).", String.join(" ", help));
    }

    @Test
    void userMistakesAreOneLineAndExitTwo() {
        String[][] mistakes = {
            {"-a", "nope"},
            {"-b", "3MiB", "-t", "2MiB"},
            {"-t", "6", "-b", "12", "--type", "long"},
            {"-b", "0"},
            {"-t", "-1MiB"},
            {"--type", "short"},
            {"--order", "backwards"},
            {"-i", "0"},
            {"-D", "-1"},
            {"--forks", "-1"},
            {"--warmup", "-2"},
            {"--wear-out"},
            {"--no-such-option"},
            {"--byte-order", "middle"},
            {"-a", "data-stream", "--byte-order", "little"},
            {"-a", "raw-bytes", "--direct"},
            {"-a", "nio-bulk", "--nio-bulk.piece-size", "lots"},
            {"-a", "bulk-jni", "--bulk-jni.in-place", "sometimes"},
            {"-a", "calibrate", "--calibrate.jitter", "5%"},
            {"--buffer-size", "0"},
            {"--buffer-size", "3GiB"},
            {"-a", "c-stdio", "--c-stdio.buffer-size", "3GiB"},
            {"--calibrate-rate", "0"},
            {"-a", "calibrate", "--calibrate.rate", "fast"},
            // An approach's option is checked whether or not its approach runs.
            {"-a", "calibrate", "--buffered-stream.buffer-size", "banana"},
            {"-a", "calibrate", "--c-stdio.buffer-size", "3GiB"},
            {"-a", "raw-bytes", "--c-swap.piece-size", "0"},
            {"-a", "raw-bytes", "--calibrate.rate", "-3"},
            {"-i", "auto"},
            {"-i", "auto", "--time-budget", "soon"},
            {"--max-reps", "12"},
        };
        for (String[] mistake : mistakes) {
            err.reset();
            assertEquals(2, run(mistake), String.join(" ", mistake));
            String text = errors().strip();
            assertTrue(text.startsWith("jiobench: error: "), text);
            assertEquals(1, text.lines().count(), text);
        }
    }

    @Test
    void aSizeNoLayoutHoldsIsRefusedAsSuchOnAnyFileSystem() {
        String file = dir.resolve("f.dat").toString();
        assertEquals(2, run("-a", "raw-bytes", "--object-size", "8GiB", "-o", file));
        assertEquals("jiobench: error: --object-size 8GiB is more than any CephFS takes: its layouts hold objects "
                + "under 4GiB, and its OSDs objects of at most osd_max_object_size (128MiB unless raised) (see --help)",
                errors().strip(), "not --stripe-ignore's hint, which would run on without the value");
        err.reset();
        assertEquals(2, run("-a", "raw-bytes", "--object-size", "4GiB", "-o", file));
        assertTrue(errors().startsWith("jiobench: error: --object-size 4GiB is more than any CephFS takes"), errors());
        err.reset();
        assertEquals(2, run("-a", "raw-bytes", "--stripe-size", "4GiB", "-o", file));
        assertEquals("jiobench: error: --stripe-size 4GiB is not under 4GiB, as Lustre and CephFS require (see --help)",
                errors().strip());
        err.reset();
        assertEquals(2, run("-a", "raw-bytes", "--object-size", "4194240KiB", "-o", file));
        assertTrue(errors().contains("(pass --stripe-ignore to run without striping)"), "a size a layout holds: "
                + errors());
    }

    @Test
    void anApproachOptionReachesItsApproach() {
        assertEquals(0, run("-a", "nio-bulk", "--nio-bulk.piece-size", "1000", "-b", "8k", "-t", "4k", "--verify",
                "--byte-order", "little", "-o", dir.resolve("f").toString()), errors());
        assertEquals(2, run("-a", "nio-bulk", "--nio-bulk.piece-size", "3GiB", "-o", dir.resolve("f").toString()));
        assertTrue(errors().contains("--nio-bulk.piece-size: '3GiB' is too large"), errors());
    }

    @Test
    void transferSizeMustHoldWholeElements() {
        assertEquals(2, run("-b", "12", "-t", "6", "--type", "long", "-o", dir.resolve("f").toString()));
        assertTrue(errors().contains("not a multiple of the long size (8 bytes; --type byte allows any size)"), errors());
    }

    @Test
    void neverWritesIntoAFileItDidNotCreate() throws IOException {
        Path precious = dir.resolve("precious.dat");
        Files.writeString(precious, "keep me");
        assertEquals(2, run("-a", "raw-bytes", "-b", "4k", "-t", "4k", "-o", precious.toString()));
        assertTrue(errors().contains("--overwrite"), errors());
        assertEquals("keep me", Files.readString(precious));

        assertEquals(0, run("-a", "raw-bytes", "-b", "4k", "-t", "4k", "--overwrite", "-o", precious.toString()));
        assertTrue(Files.exists(precious), "an overwritten file is the user's: never removed");
        assertEquals(4096, Files.size(precious));
    }

    @Test
    void removesOnlyWhatItCreatedUnlessKept() {
        Path created = dir.resolve("made.dat");
        assertEquals(0, run("-a", "raw-bytes", "-b", "8k", "-t", "4k", "-o", created.toString()));
        assertFalse(Files.exists(created));
        assertEquals(0, run("-a", "raw-bytes", "-b", "8k", "-t", "4k", "--keep", "-o", created.toString()));
        assertTrue(Files.exists(created));
    }

    @Test
    void printsOneRecordPerPhase() throws IOException {
        assertEquals(0, run("-a", "raw-bytes,calibrate", "-b", "8k", "-t", "4k", "-i", "2", "--verify",
                "-o", dir.resolve("f.dat").toString()), errors());
        ObjectMapper json = new ObjectMapper();
        String[] lines = out.toString(StandardCharsets.UTF_8).strip().split("\n");
        assertEquals(12, lines.length, "one warm-up repetition, then two measured, of 2 approaches x 2 ops");
        JsonNode first = json.readTree(lines[0]);
        assertEquals("raw-bytes", first.get("approach").asText());
        assertEquals("write", first.get("op").asText());
        assertEquals(8192, first.get("bytes").asLong());
        assertTrue(first.get("verified").asBoolean());
        assertTrue(first.get("warmup").asBoolean());
        assertEquals(0, first.get("fork").asInt(), "by hand, one JVM runs every approach: fork 0");
        for (int line = 4; line < 12; line++) assertFalse(json.readTree(lines[line]).get("warmup").asBoolean());
        JsonNode calibrate = json.readTree(lines[11]);
        assertEquals("calibrate", calibrate.get("approach").asText());
        assertEquals(2, calibrate.get("rep").asInt());
        assertTrue(calibrate.get("verified").isNull(), "calibration has no data to verify");
    }

    @Test
    void aDryRunChecksTheOptionsAndTouchesNothing() throws IOException {
        Path file = dir.resolve("f.dat");
        Path results = dir.resolve("results");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream standardOut = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));  // picocli's own output
        try {
            assertEquals(0, run("--dry-run", "-a", "raw-bytes", "-b", "8k", "-t", "4k", "-o", file.toString(),
                    "--results", results.toString()), errors());
        } finally {
            System.setOut(standardOut);
        }
        JsonNode parameters = new ObjectMapper().readTree(printed.toString(StandardCharsets.UTF_8));
        assertEquals(file.toString(), parameters.get("file").asText());
        assertEquals(4096, parameters.get("transfer_size").asLong());
        assertFalse(Files.exists(file));
        assertFalse(Files.exists(results));
        assertEquals("", out.toString(StandardCharsets.UTF_8), "no phase ran");
        assertEquals(2, run("--dry-run", "-b", "3MiB", "-t", "2MiB", "-o", file.toString()));
        assertTrue(errors().contains("is not a multiple of transfer size"), errors());
    }

    /** The parameters a dry run of these options prints. */
    private JsonNode dryRun(String... options) throws IOException {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream standardOut = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));  // picocli's own output
        try {
            String[] args = java.util.stream.Stream.concat(java.util.stream.Stream.of("--dry-run", "-o",
                    dir.resolve("f.dat").toString()), java.util.Arrays.stream(options)).toArray(String[]::new);
            assertEquals(0, run(args), errors());
        } finally {
            System.setOut(standardOut);
        }
        return new ObjectMapper().readTree(printed.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theRunWideSpellingsSetTheApproachOptionsUnderTheirOldKeys() throws IOException {
        JsonNode defaults = dryRun("-a", "calibrate,buffered-stream");
        assertEquals(8192, defaults.get("buffer_size").asLong());
        assertEquals(256L << 20, defaults.get("calibrate_rate").asLong());
        assertEquals("{\"calibrate\":{\"jitter\":\"none\"}}", defaults.get("approach_options").toString());

        JsonNode old = dryRun("-a", "calibrate,buffered-stream", "--buffer-size", "1KiB", "--calibrate-rate", "64MiB");
        JsonNode own = dryRun("-a", "calibrate,buffered-stream", "--buffered-stream.buffer-size", "1KiB",
                "--calibrate.rate", "64MiB");
        for (JsonNode parameters : new JsonNode[] {old, own}) {
            assertEquals(1024, parameters.get("buffer_size").asLong());
            assertEquals(64L << 20, parameters.get("calibrate_rate").asLong());
            assertEquals(defaults.get("approach_options"), parameters.get("approach_options"));
        }
    }

    @Test
    void aDryRunChecksAutoRepetitionsAsTheLaunchersRunnerWould() throws IOException {
        JsonNode parameters = dryRun("-a", "calibrate", "-i", "auto", "--time-budget", "20s");
        assertEquals("auto", parameters.get("repetitions").asText());
        assertEquals(20.0, parameters.get("time_budget_s").asDouble());
        assertEquals(2, run("--dry-run", "-o", dir.resolve("f.dat").toString(), "-i", "auto", "--max-reps", "5"));
        assertTrue(errors().contains("--max-reps must be at least 6"), errors());
    }

    @Test
    void anApproachsOwnValueBeatsTheRunWideOneAndTheRunFileSaysSo() throws IOException {
        JsonNode parameters = dryRun("-a", "buffered-stream,c-stdio", "--buffer-size", "4KiB",
                "--c-stdio.buffer-size", "64KiB");
        assertEquals(4096, parameters.get("buffer_size").asLong(), "what the approaches do not share: --buffer-size");
        assertEquals("{\"c-stdio\":{\"buffer-size\":65536}}", parameters.get("approach_options").toString());
    }

    @Test
    void readOnlyRunNeedsAFileLargeEnough() throws IOException {
        assertEquals(2, run("-r", "-o", dir.resolve("absent.dat").toString()));
        assertTrue(errors().contains("does not exist"), errors());
        Path small = dir.resolve("small.dat");
        Files.write(small, new byte[100]);
        err.reset();
        assertEquals(2, run("-r", "-b", "4k", "-t", "4k", "-o", small.toString()));
        assertTrue(errors().contains("holds 100 bytes but the plan reads 4096"), errors());
    }
}
