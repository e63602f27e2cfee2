package org.jiobench.runner;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Many runs' options checked in this one JVM, each as the runner checks a run's (its command
 * line, --dry-run, a rank's World): for the tests of bad input (runner/python/tests/test_bad_input.py),
 * whose JVM start per case would cost more than the check. Reads one JSON array of runner
 * arguments per line and answers each with one JSON line: the exit code and what the run said on
 * standard error and standard output.
 */
public final class DryRuns {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private DryRuns() {
    }

    public static void main(String[] ignored) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            List<String> args = new ArrayList<>(List.of(MAPPER.readValue(line, String[].class)));
            args.add("--dry-run");
            System.out.println(Json.line(checked(args.toArray(String[]::new))));
            System.out.flush();
        }
    }

    static Map<String, Object> checked(String[] args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args, new SoloWorld(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)));
        return Map.of("code", code, "stdout", out.toString(StandardCharsets.UTF_8),
                "stderr", err.toString(StandardCharsets.UTF_8));
    }
}
