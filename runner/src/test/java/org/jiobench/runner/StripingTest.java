package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Lustre layout a run asks for: when it applies, the exact lfs command, and the creation
 * through the stand-in lfs of src/test/stand-ins (first on this test JVM's PATH), which records
 * its arguments in $LFS_RECORD.
 */
class StripingTest {
    @TempDir
    Path dir;

    @Test
    void theCommandNamesOnlyWhatWasAskedFor() {
        Path file = Path.of("/lustre/scratch/f.dat");
        assertEquals(List.of("lfs", "setstripe", "-c", "8", "-S", "4194304", "/lustre/scratch/f.dat"),
                new Striping(8, 4 << 20, false).command(file));
        assertEquals(List.of("lfs", "setstripe", "-c", "-1", "/lustre/scratch/f.dat"),
                new Striping(-1, 0, false).command(file));
        assertEquals(List.of("lfs", "setstripe", "-S", "1048576", "/lustre/scratch/f.dat"),
                new Striping(0, 1 << 20, false).command(file));
    }

    @Test
    void onLustreItApplies_elsewhereItIsRefusedOrIgnoredWhenSaid() throws UsageError {
        assertTrue(new Striping(4, 0, false).appliesTo("lustre", dir));
        assertFalse(new Striping(0, 0, false).appliesTo("ext4", dir), "nothing asked: nothing to refuse");
        UsageError refused = assertThrows(UsageError.class, () -> new Striping(4, 0, false).appliesTo("ext4", dir));
        assertEquals("--stripe-count and --stripe-size set a Lustre layout, but " + dir + " is on ext4 (pass "
                + "--stripe-ignore to run without striping)", refused.getMessage());
        assertFalse(new Striping(4, 0, true).appliesTo("ext4", dir));
    }

    @Test
    void theFileIsCreatedThroughLfsWithItsLayout() throws UsageError, IOException {
        Path record = Path.of(System.getenv().getOrDefault("LFS_RECORD", "/nonexistent"));
        Path file = dir.resolve("striped.dat");
        long before = Files.exists(record) ? Files.readAllLines(record).size() : 0;
        new Striping(4, 1 << 20, false).create(file);
        assertTrue(Files.exists(file));
        List<String> lines = Files.readAllLines(record);
        assertEquals(before + 1, lines.size());
        assertEquals("setstripe -c 4 -S 1048576 " + file, lines.get(lines.size() - 1));
        UsageError again = assertThrows(UsageError.class, () -> new Striping(4, 1 << 20, false).create(file));
        assertTrue(again.getMessage().contains("File exists"), again.getMessage());
    }
}
