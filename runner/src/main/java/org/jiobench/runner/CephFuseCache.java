package org.jiobench.runner;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jiobench.bulk.PageCache;

/**
 * ceph-fuse keeps file data in a cache of its own (its object cacher, {@code client_oc}), which
 * the kernel's page cache calls never reach: a read after posix_fadvise(DONTNEED), or after the
 * kernel dropped its caches, still comes from ceph-fuse's memory. Its admin socket empties it: with
 * {@code client_oc_size} set to 0 the next read through the client trims the cache to nothing, and
 * {@code config unset} gives the client back the size its configuration sets.
 *
 * <p>The socket is the one the ceph-fuse process that serves the file's mount listens on, found
 * through the process's own descriptors: only a ceph-fuse of this user's can be reached.
 */
final class CephFuseCache {
    static final String TYPE = "fuse.ceph-fuse";
    private static final String SIZE_OPTION = "client_oc_size";

    private final Path socket;

    private CephFuseCache(Path socket) {
        this.socket = socket;
    }

    Path socket() {
        return socket;
    }

    /**
     * The cache of the ceph-fuse that serves {@code directory}; null where the directory is on
     * another file system.
     *
     * @throws UsageError where it is on ceph-fuse but no admin socket of that client can be reached
     */
    static CephFuseCache serving(String filesystemType, Path directory) throws UsageError {
        if (!TYPE.equals(filesystemType)) return null;
        Path mount = mountPoint(directory.toAbsolutePath().normalize());
        Optional<Path> socket = mount == null ? Optional.empty() : adminSocketOf(mount);
        if (socket.isEmpty()) {
            throw new UsageError("--drop-cache on ceph-fuse (" + directory + ") empties the client's own cache "
                    + "through its admin socket, but no ceph-fuse of this user's serves " + (mount == null ? directory
                    : mount) + " with one (mount it yourself, or read through the kernel client, mount -t ceph)");
        }
        return new CephFuseCache(socket.get());
    }

    /** Empties ceph-fuse's cache of every file and this node's page cache of {@code file}; untimed. */
    void empty(Path file) throws IOException {
        ask("{\"prefix\": \"config set\", \"var\": \"" + SIZE_OPTION + "\", \"val\": [\"0\"]}");
        try {
            PageCache.drop(file);
            // A read the page cache cannot answer reaches the client, which trims its cache to the size.
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                channel.read(ByteBuffer.allocate(1), 0);
            }
        } finally {
            ask("{\"prefix\": \"config unset\", \"var\": \"" + SIZE_OPTION + "\"}");
        }
        PageCache.drop(file);
    }

    /** One command to the admin socket: the JSON command, a NUL; back, a big-endian length and the answer. */
    String ask(String command) throws IOException {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            byte[] bytes = (command + "\0").getBytes(StandardCharsets.UTF_8);
            ByteBuffer out = ByteBuffer.wrap(bytes);
            while (out.hasRemaining()) channel.write(out);
            ByteBuffer length = ByteBuffer.allocate(4);
            readFully(channel, length);
            ByteBuffer answer = ByteBuffer.allocate(length.getInt(0));
            readFully(channel, answer);
            String text = new String(answer.array(), StandardCharsets.UTF_8).strip();
            if (text.startsWith("ERROR")) throw new IOException(socket + ": " + command + ": " + text);
            return text;
        }
    }

    private void readFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) throw new IOException(socket + " closed before it answered");
        }
    }

    /** The mount point of the ceph-fuse mount that holds {@code path}, from the mount table. */
    static Path mountPoint(Path path) {
        Path best = null;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
                String[] fields = line.split(" ");
                if (fields.length < 3 || !TYPE.equals(fields[2])) continue;
                Path point = Path.of(fields[1].replace("\\040", " "));
                if (path.startsWith(point) && (best == null || point.getNameCount() > best.getNameCount())) best = point;
            }
        } catch (IOException unreadable) {
            return null;
        }
        return best;
    }

    /**
     * The admin socket of this user's ceph-fuse process whose command line mounts {@code mount} in
     * this process's mount namespace (containers and namespaces of one machine may each mount
     * their own client at one path).
     */
    static Optional<Path> adminSocketOf(Path mount) {
        Path ownNamespace;
        try {
            ownNamespace = Files.readSymbolicLink(Path.of("/proc/self/ns/mnt"));
        } catch (IOException noNamespaces) {
            ownNamespace = null;
        }
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path process : processes) {
                if (!mounts(process, mount) || !inNamespace(process, ownNamespace)) continue;
                Optional<Path> socket = listeningSocket(process);
                if (socket.isPresent()) return socket;
            }
        } catch (IOException unreadable) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    private static boolean inNamespace(Path process, Path namespace) {
        try {
            return namespace == null || namespace.equals(Files.readSymbolicLink(process.resolve("ns/mnt")));
        } catch (IOException notThisUsers) {
            return false;
        }
    }

    private static boolean mounts(Path process, Path mount) {
        List<String> arguments;
        try {
            arguments = List.of(new String(Files.readAllBytes(process.resolve("cmdline")), StandardCharsets.UTF_8)
                    .split("\0"));
        } catch (IOException gone) {
            return false;
        }
        if (arguments.isEmpty() || !Path.of(arguments.get(0)).getFileName().toString().equals("ceph-fuse")) return false;
        return arguments.stream().skip(1).filter(argument -> !argument.isEmpty() && !argument.startsWith("-"))
                .anyMatch(argument -> Path.of(argument).isAbsolute() && Path.of(argument).normalize().equals(mount));
    }

    /** The .asok path among the Unix sockets the process holds open: its descriptors, matched in /proc/net/unix. */
    private static Optional<Path> listeningSocket(Path process) {
        Set<String> inodes = new HashSet<>();
        try (DirectoryStream<Path> descriptors = Files.newDirectoryStream(process.resolve("fd"))) {
            for (Path descriptor : descriptors) {
                String target = Files.readSymbolicLink(descriptor).toString();
                if (target.startsWith("socket:[")) inodes.add(target.substring(8, target.length() - 1));
            }
            return adminSocket(inodes, Files.readAllLines(Path.of("/proc/net/unix")));
        } catch (IOException notThisUsers) {
            return Optional.empty();
        }
    }

    /** From /proc/net/unix's lines (Num RefCount Protocol Flags Type St Inode Path): a socket ending .asok of those inodes. */
    static Optional<Path> adminSocket(Set<String> inodes, List<String> unixSockets) {
        for (String line : unixSockets) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length >= 8 && inodes.contains(fields[6]) && fields[7].endsWith(".asok")) {
                return Optional.of(Path.of(fields[7]));
            }
        }
        return Optional.empty();
    }
}
