package org.jiobench.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * CephFS: each file has a layout of its own, set through its {@code ceph.file.layout} attribute
 * while it is empty: the stripe unit (--stripe-size), how many objects a stripe spans
 * (--stripe-count; -1: every OSD) and the size of each object (--object-size). What is not asked
 * for stays as the file inherited it from its directory. The file is created empty, laid out, and
 * removed again when CephFS refuses the layout.
 */
final class CephLayout implements FileLayout {
    /** The mount table's names of a CephFS mount: the kernel client's and ceph-fuse's. */
    static final Set<String> TYPES = Set.of("ceph", "fuse.ceph-fuse", "fuse.ceph");
    /**
     * Ceph's own default object size: asked for a stripe size alone, the objects are the
     * smallest multiple of it at least this large, as Ceph needs the stripe unit to divide them.
     */
    static final long DEFAULT_OBJECT_SIZE = 4L << 20;
    static final String ATTRIBUTE = "ceph.file.layout";

    private final Striping striping;

    CephLayout(Striping striping) {
        this.striping = striping;
    }

    /** The object size this layout sets, 0 where the file keeps its directory's. */
    long objectSize() {
        if (striping.objectSize() > 0) return striping.objectSize();
        if (striping.size() == 0) return 0;
        return Math.max(1, (DEFAULT_OBJECT_SIZE + striping.size() - 1) / striping.size()) * striping.size();
    }

    /** The attribute's value for a stripe count already resolved against the OSDs (0: not asked). */
    String value(int stripeCount) {
        List<String> fields = new ArrayList<>();
        if (striping.size() > 0) fields.add("stripe_unit=" + striping.size());
        if (stripeCount > 0) fields.add("stripe_count=" + stripeCount);
        if (objectSize() > 0) fields.add("object_size=" + objectSize());
        return String.join(" ", fields);
    }

    @Override
    public void create(Path file) throws UsageError {
        String value = value(stripeCount());
        checkObjectsFitTheOsds();
        try {
            Files.createFile(file);
        } catch (FileAlreadyExistsException raced) {
            throw new UsageError(file + " was created by someone else just now (another run?)");
        } catch (IOException e) {
            throw new UsageError("cannot create " + file + " (" + e.getMessage() + ")");
        }
        ToolCommand set = ToolCommand.run(List.of("setfattr", "-n", ATTRIBUTE, "-v", value, file.toString()),
                "is setfattr (Debian and RHEL: attr) installed?");
        if (!set.succeeded()) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // The message below names the file; the run's own removal tries again.
            }
            throw new UsageError(set.failure() + (striping.size() == 0 && striping.objectSize() > 0
                    ? " (the object size must be a multiple of the directory's stripe unit: give --stripe-size too)"
                    : ""));
        }
    }

    /** The stripe count to set: -1 resolved to the OSDs, a count checked against them; 0 when not asked. */
    private int stripeCount() throws UsageError {
        if (striping.count() == 0) return 0;
        Integer osds = osdCount();
        if (striping.count() == -1) {
            if (osds == null) {
                throw new UsageError("--stripe-count -1 on CephFS counts the OSDs with `ceph osd stat`, which failed: "
                        + "give a count (CEPH_CONF names the cluster's configuration)");
            }
            return osds;
        }
        if (osds != null && striping.count() > osds) {
            throw new UsageError("--stripe-count " + striping.count() + " is more than the " + osds
                    + " OSDs of this CephFS: a stripe would put several of its objects on one OSD");
        }
        return striping.count();
    }

    /**
     * CephFS takes a layout whose objects its OSDs refuse to grow to: a write past the OSDs'
     * largest object (osd_max_object_size) into one fails, and ceph-fuse retries it without end
     * (measured: the writer hung in its fsync). Not checked where the ceph CLI cannot ask.
     */
    private void checkObjectsFitTheOsds() throws UsageError {
        long objects = objectSize();
        Long largest = objects > 0 ? largestObject() : null;
        if (largest == null || objects <= largest) return;
        String asked = striping.objectSize() > 0 ? "--object-size " + Sizes.format(objects)
                : "--stripe-size " + Sizes.format(striping.size()) + " (objects of " + Sizes.format(objects) + ")";
        throw new UsageError(asked + " is more than this CephFS's OSDs hold in an object (osd_max_object_size "
                + Sizes.format(largest) + "): a write past that fails, and ceph-fuse retries it without end");
    }

    /** The OSDs' osd_max_object_size, as the cluster's configuration says; null where the ceph CLI cannot ask it. */
    static Long largestObject() {
        ToolCommand get;
        try {
            get = ToolCommand.run(List.of("ceph", "--connect-timeout", "10", "config", "get", "osd",
                    "osd_max_object_size"), "");
        } catch (UsageError noCli) {
            return null;
        }
        if (!get.succeeded()) return null;
        List<String> lines = get.output().strip().lines().toList();  // the value last, past any warning
        try {
            return lines.isEmpty() ? null : Long.parseLong(lines.get(lines.size() - 1).strip());
        } catch (NumberFormatException notANumber) {
            return null;
        }
    }

    /** The OSDs that hold data ("in"), as the cluster's monitors say; null where the ceph CLI cannot ask them. */
    static Integer osdCount() {
        ToolCommand stat;
        try {
            stat = ToolCommand.run(List.of("ceph", "--connect-timeout", "10", "osd", "stat", "--format", "json"), "");
        } catch (UsageError noCli) {
            return null;
        }
        int json = stat.output().indexOf('{');  // past any warning the CLI printed first
        if (!stat.succeeded() || json < 0) return null;
        try {
            JsonNode osds = new ObjectMapper().readTree(stat.output().substring(json)).path("num_in_osds");
            return osds.isInt() ? osds.intValue() : null;
        } catch (IOException notJson) {
            return null;
        }
    }
}
