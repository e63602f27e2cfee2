#define _GNU_SOURCE /* O_DIRECT */
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

#include "byte_order.h"
#include "jni_support.h"
#include "posix_io.h"

JNIEXPORT jint JNICALL Java_org_jiobench_bulk_PosixFile_open(JNIEnv *env, jclass cls, jbyteArray native_name,
                                                           jstring path, jboolean for_write, jboolean direct)
{
    (void)cls;
    char name[PATH_MAX];
    if (!native_path(env, native_name, name))
        return -1;
    /* No O_TRUNC: ranks open one shared file for writing, each its own blocks. O_CLOEXEC keeps the
     * descriptor out of processes the JVM starts. */
    int flags = (for_write ? O_WRONLY | O_CREAT : O_RDONLY) | O_CLOEXEC | (direct ? O_DIRECT : 0);
    int fd = open(name, flags, 0666);
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

/* What a phase moves and how: transfers of length bytes, transfer k's at data + k * stride (a
 * stride of 0: every transfer moves the same bytes), either already in the file's byte order
 * (element_size 0) or a C array of elements of element_size bytes in the opposite order, converted
 * piece by piece. */
struct phase {
    int fd;
    jstring path;
    jboolean write;
    unsigned char *data;
    jint length;
    jint stride;
    size_t element_size;
    unsigned char *piece; /* the conversion buffer of a write */
    jint piece_length;    /* a multiple of element_size */
};

static bool write_at(JNIEnv *env, const struct phase *p, const void *bytes, size_t size, jlong offset)
{
    if (pwrite_fully(p->fd, bytes, size, offset) == 0)
        return true;
    throw_io_error(env, p->path, "pwrite", errno);
    return false;
}

static bool read_at(JNIEnv *env, const struct phase *p, void *bytes, size_t size, jlong offset)
{
    ssize_t got = pread_fully(p->fd, bytes, size, offset);
    if (got == (ssize_t)size)
        return true;
    if (got < 0)
        throw_io_error(env, p->path, "pread", errno);
    else
        throw_exception(env, EOF_EXCEPTION, p->path, "end of file after %zd of %zu bytes at offset %lld", got, size,
                        (long long)offset);
    return false;
}

/* A write converts a piece into the buffer and writes it while it is in the cache; a read reads
 * a piece straight into the array and swaps it there. */
static bool transfer_one(JNIEnv *env, const struct phase *p, unsigned char *data, jlong offset)
{
    if (p->element_size == 0)
        return p->write ? write_at(env, p, data, (size_t)p->length, offset)
                        : read_at(env, p, data, (size_t)p->length, offset);
    element_convert_fn *swap = swapping_copy(p->element_size);
    for (jint at = 0; at < p->length; at += p->piece_length) {
        size_t n = (size_t)(p->length - at < p->piece_length ? p->length - at : p->piece_length);
        if (p->write) {
            swap(p->piece, data + at, n / p->element_size);
            if (!write_at(env, p, p->piece, n, offset + at))
                return false;
        } else {
            if (!read_at(env, p, data + at, n, offset + at))
                return false;
            swap_in_place(data + at, p->element_size, n / p->element_size);
        }
    }
    return true;
}

/* Returns the transfers done, or -1 with an exception pending (a failed call, or one the callback
 * threw). Stops at the first transfer boundary it sees nanos_left after its start. */
static jint run_phase(JNIEnv *env, const struct phase *p, const jlong *offsets, jsize count, jobject callback,
                      jlong nanos_left)
{
    int64_t deadline = deadline_after(nanos_left);
    for (jsize k = 0; k < count; k++) {
        if (deadline_passed(deadline, k))
            return k;
        if (callback != NULL) {
            jboolean proceed = (*env)->CallBooleanMethod(env, callback, before_transfer_method, k);
            if ((*env)->ExceptionCheck(env))
                return -1;
            if (!proceed)
                return k;
        }
        if (!transfer_one(env, p, p->data + (size_t)k * (size_t)p->stride, offsets[k]))
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
                                                               jlongArray offsets, jboolean batch,
                                                               jlong nanos_left, jobject callback,
                                                               jint element_size, jobject piece)
{
    (void)cls;
    jlong capacity;
    struct phase p = {fd,   path, write, direct_buffer(env, buffer, &capacity), length, batch ? length : 0,
                      (size_t)element_size, NULL, 0};
    if (p.data == NULL)
        return -1;
    jsize transfers = batch && offsets != NULL ? (*env)->GetArrayLength(env, offsets) : 1;
    if (length < 0 || (jlong)length * transfers > capacity) {
        throw_exception(env, OUT_OF_BOUNDS_EXCEPTION, NULL,
                        "%d transfer(s) of length %d out of bounds for a buffer of capacity %lld", transfers, length,
                        (long long)capacity);
        return -1;
    }
    if (element_size != 0) {
        if (element_size != 2 && element_size != 4 && element_size != 8) {
            throw_exception(env, ILLEGAL_ARGUMENT_EXCEPTION, NULL, "element size %d is not 2, 4 or 8", element_size);
            return -1;
        }
        if ((p.piece = direct_buffer(env, piece, &capacity)) == NULL)
            return -1;
        if (length % element_size != 0 || capacity < element_size) {
            throw_exception(env, ILLEGAL_ARGUMENT_EXCEPTION, NULL,
                            "length %d or piece capacity %lld holds no whole number of %d-byte elements", length,
                            (long long)capacity, element_size);
            return -1;
        }
        jlong whole = capacity / element_size * element_size;
        p.piece_length = whole < length ? (jint)whole : length;
    }
    jsize count;
    jlong *at = copy_offsets(env, path, offsets, length, &count);
    if (at == NULL)
        return -1;
    jint done = run_phase(env, &p, at, count, callback, nanos_left);
    free(at);
    return done;
}

JNIEXPORT void JNICALL Java_org_jiobench_bulk_PosixFile_fsync(JNIEnv *env, jclass cls, jint fd, jstring path)
{
    (void)cls;
    if (fsync(fd) < 0)
        throw_io_error(env, path, "fsync", errno);
}
