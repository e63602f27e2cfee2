package org.jiobench.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a file is, whatever its path names since: its device and inode, as stat(2) gives them
 * (and Python's os.stat: st_dev, st_ino). On the wire ({@link Wire#identityText}) "DEV.INO".
 */
record FileIdentity(long device, long inode) {
    /** The attributes of what {@code path} names, a link itself where {@code options} say not to follow. */
    static Map<String, Object> attributes(Path path, LinkOption... options) throws IOException {
        return Files.readAttributes(path, "unix:dev,ino,nlink,mode,size,uid", options);
    }

    static FileIdentity of(Map<String, Object> attributes) {
        return new FileIdentity((Long) attributes.get("dev"), (Long) attributes.get("ino"));
    }

    /** The identity of what {@code path} names itself (a link is not followed), null when nothing is there. */
    static FileIdentity at(Path path) throws IOException {
        try {
            return of(attributes(path, LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException gone) {
            return null;
        }
    }
}
