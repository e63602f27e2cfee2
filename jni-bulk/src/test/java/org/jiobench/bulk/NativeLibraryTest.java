package org.jiobench.bulk;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NativeLibraryTest {

    @Test
    void theBuildPutsTheLibraryWhereTheLoaderLooks() {
        String path = NativeLibrary.resourcePath();
        assertTrue(path.matches("/native/linux-\\w+/libjiobench-bulk\\.so"), path);
        assertNotNull(NativeLibrary.class.getResource(path), path);
    }
}
