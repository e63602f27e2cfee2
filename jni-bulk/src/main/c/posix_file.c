/*
 * PosixFile: the C baseline's I/O, one JNI call per phase. The loop over transfers runs here, so a
 * phase costs what the same loop costs in a C program, plus the optional callbacks the Java side
 * asks for (deadline checks, per-transfer timing).
 */
#include "org_jiobench_bulk_PosixFile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "jni_support.h"
#include "posix_io.h"

JNIEXPORT jint JNICALL Java_org_jiobench_bulk_PosixFile_open(JNIEnv *env, jclass cls, jbyteArray native_name,
                                                           jstring path, jboolean for_write)
{
    (void)cls;
    char name[PATH_MAX];
    if (!native_path(env, native_name, name))
        return -1;
    /* No O_TRUNC: ranks open one shared file for writing, each its own blocks. O_CLOEXEC keeps the
     * descriptor out of processes the JVM starts. */
    int fd = open(name, (for_write ? O_WRONLY | O_CREAT : O_RDONLY) | O_CLOEXEC, 0666);
    if (fd < 0)
        throw_io_error(env, path, "open", errno);
    return fd;
}

/* The offsets as they are when the phase starts, all checked before the first transfer; NULL
 * with an exception pending if one is wrong. */
static jlong *copy_offsets(JNIEnv *env, jstring path, jlongArray offsets, jint length, jsize *count)
{
    if (offsets == NULL) {
        throw_exception(env, NULL_POINTER_EXCEPTION, NULL, "offsets is null");
        return NULL;
    }
    *count = (*env)->GetArrayLength(env, offsets);
    jlong *copy = malloc((size_t)(*count > 0 ? *count : 1) * sizeof *copy);
    if (copy == NULL) {
        throw_exception(env, "java/lang/OutOfMemoryError", NULL, "%d offsets", *count);
        return NULL;
    }
    (*env)->GetLongArrayRegion(env, offsets, 0, *count, copy);
    for (jsize k = 0; k < *count; k++) {
        if (copy[k] < 0 || copy[k] > INT64_MAX - length) {
            throw_exception(env, ILLEGAL_ARGUMENT_EXCEPTION, path, "offsets[%d] = %lld is out of range", k,
                            (long long)copy[k]);
            free(copy);
            return NULL;
        }
    }
    return copy;
}

static bool transfer_one(JNIEnv *env, int fd, jstring path, jboolean write, void *buffer, jint length, jlong offset)
{
    if (write) {
        if (pwrite_fully(fd, buffer, (size_t)length, offset) == 0)
            return true;
        throw_io_error(env, path, "pwrite", errno);
        return false;
    }
    ssize_t got = pread_fully(fd, buffer, (size_t)length, offset);
    if (got == length)
        return true;
    if (got < 0)
        throw_io_error(env, path, "pread", errno);
    else
        throw_exception(env, EOF_EXCEPTION, path, "end of file after %zd of %d bytes at offset %lld", got, length,
                        (long long)offset);
    return false;
}

/* Returns the transfers done, or -1 with an exception pending (a failed call, or one the callback threw). */
static jint run_phase(JNIEnv *env, int fd, jstring path, jboolean write, void *buffer, jint length,
                      const jlong *offsets, jsize count, jobject callback)
{
    for (jsize k = 0; k < count; k++) {
        if (callback != NULL) {
            jboolean proceed = (*env)->CallBooleanMethod(env, callback, before_transfer_method, k);
            if ((*env)->ExceptionCheck(env))
                return -1;
            if (!proceed)
                return k;
        }
        if (!transfer_one(env, fd, path, write, buffer, length, offsets[k]))
            return -1;
        if (callback != NULL) {
            (*env)->CallVoidMethod(env, callback, after_transfer_method, k);
            if ((*env)->ExceptionCheck(env))
                return -1;
        }
    }
    return count;
}

JNIEXPORT jint JNICALL Java_org_jiobench_bulk_PosixFile_transfer(JNIEnv *env, jclass cls, jint fd, jstring path,
                                                               jboolean write, jobject buffer, jint length,
                                                               jlongArray offsets, jobject callback)
{
    (void)cls;
    jlong capacity;
    void *address = direct_buffer(env, buffer, &capacity);
    if (address == NULL)
        return -1;
    if (length < 0 || length > capacity) {
        throw_exception(env, OUT_OF_BOUNDS_EXCEPTION, NULL, "length %d out of bounds for a buffer of capacity %lld",
                        length, (long long)capacity);
        return -1;
    }
    jsize count;
    jlong *at = copy_offsets(env, path, offsets, length, &count);
    if (at == NULL)
        return -1;
    jint done = run_phase(env, fd, path, write, address, length, at, count, callback);
    free(at);
    return done;
}

JNIEXPORT void JNICALL Java_org_jiobench_bulk_PosixFile_fsync(JNIEnv *env, jclass cls, jint fd, jstring path)
{
    (void)cls;
    if (fsync(fd) < 0)
        throw_io_error(env, path, "fsync", errno);
}

JNIEXPORT void JNICALL Java_org_jiobench_bulk_PosixFile_close(JNIEnv *env, jclass cls, jint fd, jstring path)
{
    (void)cls;
    /* Linux releases the descriptor even when close reports EINTR; retrying could close another file. */
    if (close(fd) < 0 && errno != EINTR)
        throw_io_error(env, path, "close", errno);
}
