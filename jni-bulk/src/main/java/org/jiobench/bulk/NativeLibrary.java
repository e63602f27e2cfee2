package org.jiobench.bulk;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads libjiobench-bulk, once: the copy in this jar (or class directory) for the running platform,
 * else one on {@code java.library.path}. Every class with native methods calls {@link #load()} first.
 */
final class NativeLibrary {

    static final String NAME = "jiobench-bulk";

    private static boolean loaded;

    private NativeLibrary() {
    }

    static synchronized void load() {
        if (loaded) {
            return;
        }
        String resource = resourcePath();
        try {
            loadResource(resource);
        } catch (IOException | UnsatisfiedLinkError bundled) {
            try {
                System.loadLibrary(NAME);
            } catch (UnsatisfiedLinkError fromPath) {
                UnsatisfiedLinkError failure = new UnsatisfiedLinkError("cannot load the " + NAME
                        + " native library: not from the class path (" + resource + ": " + bundled.getMessage()
                        + "), nor from java.library.path (" + fromPath.getMessage() + ")");
                failure.addSuppressed(bundled);
                failure.addSuppressed(fromPath);
                throw failure;
            }
        }
        loaded = true;
    }

    /** Where the build puts the library: /native/linux-x86_64/libjiobench-bulk.so and the like. */
    static String resourcePath() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT).split(" ")[0];
        String arch = System.getProperty("os.arch");
        // Java says amd64 where uname -m, which names the build's directory, says x86_64.
        if (arch.equals("amd64")) {
            arch = "x86_64";
        }
        return "/native/" + os + "-" + arch + "/" + System.mapLibraryName(NAME);
    }

    /** System.load needs a file, so the resource is copied out of the jar first. */
    private static void loadResource(String resource) throws IOException {
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new FileNotFoundException("no such resource");
            }
            Path copy = Files.createTempFile("lib" + NAME + "-", ".so");
            try {
                Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
                System.load(copy.toString());
            } finally {
                // A loaded library stays mapped without its file; deleting it now leaves nothing
                // behind, even if the JVM dies.
                Files.deleteIfExists(copy);
            }
        }
    }
}
