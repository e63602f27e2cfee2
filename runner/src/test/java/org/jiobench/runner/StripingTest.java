package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The layout a run asks for: where it applies and how; on Lustre the exact lfs command and the
 * creation through the stand-in lfs of src/test/stand-ins (first on this test JVM's PATH), which
 * records its arguments in $LFS_RECORD; on CephFS the attribute's value (the creation on a real
 * CephFS is tests/test_ceph_volume.py's).
 */
class StripingTest {
    @TempDir
    Path dir;

    @Test
    void theCommandNamesOnlyWhatWasAskedFor() {
        Path file = Path.of("/lustre/scratch/f.dat");
        assertEquals(List.of("lfs", "setstripe", "-c", "8", "-S", "4194304", "/lustre/scratch/f.dat"),
                new LustreLayout(new Striping(8, 4 << 20, 0, false)).command(file));
        assertEquals(List.of("lfs", "setstripe", "-c", "-1", "/lustre/scratch/f.dat"),
                new LustreLayout(new Striping(-1, 0, 0, false)).command(file));
        assertEquals(List.of("lfs", "setstripe", "-S", "1048576", "/lustre/scratch/f.dat"),
                new LustreLayout(new Striping(0, 1 << 20, 0, false)).command(file));
    }

    @Test
    void onLustreAndCephFsItApplies_elsewhereItIsRefusedOrIgnoredWhenSaid() throws UsageError {
        assertInstanceOf(LustreLayout.class, new Striping(4, 0, 0, false).on("lustre", dir));
        for (String ceph : List.of("ceph", "fuse.ceph-fuse")) {
            assertInstanceOf(CephLayout.class, new Striping(4, 0, 0, false).on(ceph, dir), ceph);
        }
        assertNull(new Striping(0, 0, 0, false).on("ext4", dir), "nothing asked: nothing to refuse");
        UsageError refused = assertThrows(UsageError.class, () -> new Striping(4, 0, 0, false).on("ext4", dir));
        assertEquals("--stripe-count, --stripe-size and --object-size set a Lustre or CephFS layout, but " + dir
                + " is on ext4 (pass --stripe-ignore to run without striping)", refused.getMessage());
        assertNull(new Striping(4, 0, 0, true).on("ext4", dir));
        UsageError lustreObjects = assertThrows(UsageError.class,
                () -> new Striping(0, 0, 8 << 20, false).on("lustre", dir));
        assertTrue(lustreObjects.getMessage().startsWith("--object-size lays out a CephFS file, but "),
                lustreObjects.getMessage());
    }

    @Test
    void onCephFsOnlyWhatWasAskedForIsSet_andObjectsHoldWholeStripeUnits() {
        assertEquals("stripe_unit=1048576 stripe_count=3 object_size=4194304",
                new CephLayout(new Striping(3, 1 << 20, 0, false)).value(3), "objects of 4 MiB, Ceph's default");
        assertEquals("stripe_unit=3145728 object_size=6291456",
                new CephLayout(new Striping(0, 3 << 20, 0, false)).value(0), "the smallest multiple of 3 MiB from 4 MiB");
        assertEquals("stripe_unit=8388608 object_size=8388608",
                new CephLayout(new Striping(0, 8 << 20, 0, false)).value(0), "a stripe unit past 4 MiB is one object");
        assertEquals("stripe_count=2", new CephLayout(new Striping(2, 0, 0, false)).value(2),
                "the unit and the object size stay the directory's");
        assertEquals("stripe_unit=65536 stripe_count=5 object_size=1048576",
                new CephLayout(new Striping(-1, 64 << 10, 1 << 20, false)).value(5), "-1 resolved to the OSDs");
        assertEquals("object_size=16777216", new CephLayout(new Striping(0, 0, 16 << 20, false)).value(0));
    }

    @Test
    void theFileIsCreatedThroughLfsWithItsLayout() throws UsageError, IOException {
        Path record = Path.of(System.getenv().getOrDefault("LFS_RECORD", "/nonexistent"));
        Path file = dir.resolve("striped.dat");
        long before = Files.exists(record) ? Files.readAllLines(record).size() : 0;
        new LustreLayout(new Striping(4, 1 << 20, 0, false)).create(file);
        assertTrue(Files.exists(file));
        List<String> lines = Files.readAllLines(record);
        assertEquals(before + 1, lines.size());
        assertEquals("setstripe -c 4 -S 1048576 " + file, lines.get(lines.size() - 1));
        UsageError again = assertThrows(UsageError.class, () -> new LustreLayout(new Striping(4, 1 << 20, 0, false)).create(file));
        assertTrue(again.getMessage().contains("File exists"), again.getMessage());
    }
}
