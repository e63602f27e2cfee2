/* PageCache: evict a file's cached pages so that the next read comes from storage. */
#include "org_jiobench_bulk_PageCache.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "jni_support.h"

/* Dirty pages cannot be dropped, hence the fdatasync first. */
static bool drop_cached_pages(JNIEnv *env, int fd, jstring path)
{
    if (fdatasync(fd) < 0) {
        throw_io_error(env, path, "fdatasync", errno);
        return false;
    }
    int err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    if (err != 0) {
        throw_io_error(env, path, "posix_fadvise", err);
        return false;
    }
    return true;
}

JNIEXPORT void JNICALL Java_org_jiobench_bulk_PageCache_dropFile(JNIEnv *env, jclass cls, jbyteArray native_name,
                                                               jstring path)
{
    (void)cls;
    char name[PATH_MAX];
    if (!native_path(env, native_name, name))
        return;
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        throw_io_error(env, path, "open", errno);
        return;
    }
    bool dropped = drop_cached_pages(env, fd, path);
    if (close(fd) < 0 && dropped && errno != EINTR)
        throw_io_error(env, path, "close", errno);
}

JNIEXPORT void JNICALL Java_org_jiobench_bulk_PageCache_dropDescriptor(JNIEnv *env, jclass cls, jobject file_descriptor)
{
    (void)cls;
    int fd = descriptor_of(env, file_descriptor, NULL);
    if (fd >= 0)
        drop_cached_pages(env, fd, NULL);
}
