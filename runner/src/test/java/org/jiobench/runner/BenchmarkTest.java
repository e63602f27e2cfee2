package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A rank's phases as one runner JVM runs them alone, started as a process of its own. */
class BenchmarkTest {
    @TempDir
    Path dir;

    /**
     * A write the file system refuses (here past the file size limit, ulimit -f, which fails as a
     * full file system does, on a write the plan's checks let by) names the file once, whichever
     * library's words say the error: the native library's name the file, the stream classes' not.
     */
    @ParameterizedTest
    @CsvSource({"bulk-jni, 'pwrite: File too large'", "c-posix, 'pwrite: File too large'",
                "raw-bytes, 'File too large'"})
    void aWriteTheFileSystemRefusesNamesTheFileOnce(String approach, String error) throws Exception {
        Path file = dir.resolve("f.dat");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // 128 blocks of ulimit -f: 64 KiB (512-byte blocks, as POSIX says) or 128 KiB (bash's 1 KiB).
        List<String> command = List.of("sh", "-c", "ulimit -f 128 && exec \"$@\"", "sh", java, "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "-a", approach, "-b", "1MiB", "-t",
                "64KiB", "-i", "1", "--warmup", "0", "-w", "-o", file.toString());
        Path stderr = dir.resolve("stderr.txt");
        Process runner = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(stderr.toFile()).start();
        if (!runner.waitFor(120, TimeUnit.SECONDS)) {
            runner.destroyForcibly();
            fail("the runner did not end within 2 minutes: " + Files.readString(stderr));
        }
        List<String> said = Files.readAllLines(stderr).stream().filter(line -> line.startsWith("jiobench:")).toList();
        assertEquals(List.of("jiobench: error: " + approach + " write rep 0: " + file + ": " + error), said,
                Files.readString(stderr));
        assertEquals(ExitCode.FAILED.code, runner.exitValue());
        assertFalse(Files.exists(file), "the file the run created is removed");
    }
}
