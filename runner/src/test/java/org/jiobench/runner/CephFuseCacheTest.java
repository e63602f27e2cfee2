package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Where ceph-fuse's admin socket is found; emptying its cache through it is measured on a real
 * CephFS (tests/test_ceph_volume.py).
 */
class CephFuseCacheTest {
    private static final List<String> UNIX_SOCKETS = List.of(
            "Num       RefCount Protocol Flags    Type St Inode Path",
            "0000000000000000: 00000002 00000000 00010000 0001 01 41170 /run/ceph/ceph-client.admin.733.94.asok",
            "0000000000000000: 00000002 00000000 00010000 0001 01 41177 /run/dbus/system_bus_socket",
            "0000000000000000: 00000003 00000000 00000000 0001 03 41190",
            "0000000000000000: 00000002 00000000 00010000 0001 01 52001 /run/ceph/ceph-client.admin.901.94.asok");

    @Test
    void theSocketIsTheAdminSocketAmongTheProcesssOwn() {
        assertEquals(Optional.of(Path.of("/run/ceph/ceph-client.admin.733.94.asok")),
                CephFuseCache.adminSocket(Set.of("41190", "41177", "41170"), UNIX_SOCKETS));
        assertEquals(Optional.empty(), CephFuseCache.adminSocket(Set.of("41177", "41190"), UNIX_SOCKETS),
                "another process's admin socket is not this one's");
    }

    @Test
    void elsewhereThereIsNoClientCacheToEmpty() throws UsageError {
        assertNull(CephFuseCache.serving("ext4", Path.of("/tmp")));
        assertNull(CephFuseCache.serving("ceph", Path.of("/tmp")), "the kernel client caches in the page cache");
    }
}
