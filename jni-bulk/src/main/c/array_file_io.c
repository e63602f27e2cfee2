/*
 * BulkRandomAccessFile's transfers: pread/pwrite of a primitive array at a file position.
 *
 * The one copy of the data is the conversion between the array, held through
 * GetPrimitiveArrayCritical, and a bounce buffer (a direct ByteBuffer the Java side keeps or makes
 * per call). The critical region covers only that conversion of one chunk: the system call runs
 * after the array is released, so no thread ever waits on I/O while the garbage collector waits
 * on it. byte[] takes the same path (its conversion is a memcpy) for the same reason.
 *
 * With IN_PLACE (which the Java side sets where the JVM pins an array without holding up its
 * collector, G1 from JDK 22, or everywhere when asked, as the paper's implementation did: there a
 * collection waits for the system call) the system call runs on the pinned array itself: a read
 * lands in the array and is swapped there a chunk at a time, and a write that needs no conversion
 * goes straight from the array, in one call. A little-endian file on this (little-endian) machine
 * needs no swap. Where the array's address makes the kernel's own copy crawl (kernel_copy_shift: a
 * humongous array under G1, for one), a read lands a little further on in the array and is moved
 * (or swapped) down to its place, and a write goes through the buffer.
 */
#include "org_jiobench_bulk_ArrayFileIO.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "byte_order.h"
#include "java_arrays.h"
#include "jni_support.h"
#include "posix_io.h"

#define LITTLE_ENDIAN_FILE 1
#define IN_PLACE 2

struct transfer {
    int fd;
    unsigned char *buffer;
    jint chunk_elements; /* whole elements that fit in the buffer */
    bool little_endian;
    bool in_place;
};

/* Between the array's memory and the file's bytes. A boolean is normalized in either order. */
static void convert(const struct transfer *t, const struct element_type *type, bool to_file, void *dst,
                    const void *src, size_t count)
{
    if (t->little_endian && type != &element_boolean)
        memcpy(dst, src, count * type->size);
    else
        (to_file ? type->to_big_endian : type->from_big_endian)(dst, src, count);
}

/* Whether the file's bytes are the array's bytes, with nothing to convert. */
static bool same_bytes(const struct transfer *t, const struct element_type *type)
{
    return type != &element_boolean && (t->little_endian || type->size == 1);
}

/* Checks every argument before any memory is touched; false with an exception pending if one is wrong. */
static bool start_transfer(JNIEnv *env, jobject file_descriptor, jstring path, jarray array, jint offset,
                           jint count, jlong position, jobject buffer, jint flags,
                           const struct element_type *type, struct transfer *transfer)
{
    transfer->little_endian = (flags & LITTLE_ENDIAN_FILE) != 0;
    transfer->in_place = (flags & IN_PLACE) != 0 && type != &element_boolean;
    if (!check_array_range(env, array, offset, count))
        return false;
    if (position < 0 || position > INT64_MAX - (jlong)count * (jlong)type->size) {
        throw_exception(env, ILLEGAL_ARGUMENT_EXCEPTION, path, "position %lld out of range",
                        (long long)position);
        return false;
    }
    jlong capacity;
    transfer->buffer = direct_buffer(env, buffer, &capacity);
    if (transfer->buffer == NULL)
        return false;
    if (capacity < (jlong)type->size) {
        throw_exception(env, ILLEGAL_ARGUMENT_EXCEPTION, NULL, "a buffer of %lld bytes holds no element of %zu",
                        (long long)capacity, type->size);
        return false;
    }
    /* A ByteBuffer's capacity is an int, so the quotient fits one too. */
    transfer->chunk_elements = (jint)(capacity / (jlong)type->size);
    transfer->fd = descriptor_of(env, file_descriptor, path);
    return transfer->fd >= 0;
}

/*
 * About isCopy: HotSpot pins the array, with every collector. A JVM may hand out a copy of the
 * whole array instead; the release modes below are right either way, so the flag is not needed. A
 * write changed nothing and releases with JNI_ABORT (nothing to copy back); a read releases with 0,
 * which commits a copy. Such a JVM would pay for a copy of the whole array per chunk.
 */

/* Writes bytes from data at position a buffer's worth at a time. Returns 0, or -1 with errno set. */
static int pwrite_through_buffer(const struct transfer *t, const struct element_type *type,
                                 const unsigned char *data, size_t bytes, jlong position)
{
    size_t chunk = (size_t)t->chunk_elements * type->size;
    for (size_t done = 0; done < bytes; done += chunk) {
        size_t n = bytes - done < chunk ? bytes - done : chunk;
        memcpy(t->buffer, data + done, n);
        if (pwrite_fully(t->fd, t->buffer, n, position + (off_t)done) < 0)
            return -1;
    }
    return 0;
}

/* One pwrite straight from the pinned array, or through the buffer where the kernel's copy from it would crawl. */
static jlong write_in_place(JNIEnv *env, jstring path, jarray array, jint offset, jint count, jlong position,
                            const struct element_type *type, const struct transfer *t)
{
    unsigned char *elements = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
    if (elements == NULL)
        return -1;
    unsigned char *at = elements + (size_t)offset * type->size;
    size_t bytes = (size_t)count * type->size;
    int result = kernel_copy_shift((uintptr_t)position, (uintptr_t)at) != 0
                     ? pwrite_through_buffer(t, type, at, bytes, position)
                     : pwrite_fully(t->fd, at, bytes, position);
    int err = errno;
    (*env)->ReleasePrimitiveArrayCritical(env, array, elements, JNI_ABORT);
    if (result < 0) {
        throw_io_error(env, path, "pwrite", err);
        return -1;
    }
    return (jlong)count * (jlong)type->size;
}

static jlong write_elements(JNIEnv *env, jobject file_descriptor, jstring path, jarray array, jint offset,
                            jint count, jlong position, jobject buffer, jint flags, const struct element_type *type)
{
    struct transfer t;
    if (!start_transfer(env, file_descriptor, path, array, offset, count, position, buffer, flags, type, &t))
        return -1;
    if (t.in_place && same_bytes(&t, type))
        return write_in_place(env, path, array, offset, count, position, type, &t);
    for (jint done = 0; done < count;) {
        jint n = count - done < t.chunk_elements ? count - done : t.chunk_elements;
        unsigned char *elements = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
        if (elements == NULL)
            return -1;
        convert(&t, type, true, t.buffer, elements + (size_t)(offset + done) * type->size, (size_t)n);
        (*env)->ReleasePrimitiveArrayCritical(env, array, elements, JNI_ABORT);
        if (pwrite_fully(t.fd, t.buffer, (size_t)n * type->size, position + (off_t)done * (off_t)type->size) < 0) {
            throw_io_error(env, path, "pwrite", errno);
            return -1;
        }
        done += n;
    }
    return (jlong)count * (jlong)type->size;
}

/* Returns the bytes read: fewer than asked only at end of file, where the Java side throws
 * EOFException. The elements read whole before it are stored, as a loop of readX would store them. */
/*
 * Reads straight into the pinned array, a chunk per pread (one pread when nothing is swapped and
 * nothing is in the way), swapping each chunk in place while it is in the cache. Where the
 * kernel's copy into the array would crawl, a chunk lands `shift` bytes further on, in the place of
 * the next chunk, not read yet, and is moved down to its place (swapped on the way where the file's
 * order asks): one pass more over data in the cache where nothing is swapped, none where it is.
 * The chunk before the range's end is shortened so that its landing stays in the range; what is
 * left, less than `shift` bytes, goes through the buffer. Only for a range that lies wholly within
 * the file: at its end the bounce path stores whole elements only, as the contract asks, where a
 * pread into the array would leave part of an element changed.
 */
static jlong read_in_place(JNIEnv *env, jstring path, jarray array, jint offset, jint count, jlong position,
                           const struct element_type *type, const struct transfer *t)
{
    for (jint done = 0; done < count;) {
        unsigned char *elements = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
        if (elements == NULL)
            return -1;
        unsigned char *at = elements + (size_t)(offset + done) * type->size;
        off_t from = position + (off_t)done * (off_t)type->size;
        size_t shift = kernel_copy_shift((uintptr_t)at, (uintptr_t)from);
        jint shift_elements = (jint)((shift + type->size - 1) / type->size);
        jint chunk = same_bytes(t, type) && shift == 0 ? count : t->chunk_elements;
        jint n = count - done < chunk ? count - done : chunk;
        jint overrun = shift_elements - (count - done - n);
        if (shift != 0 && overrun > 0 && n > overrun)
            n -= overrun;
        bool shifted = shift != 0 && count - done - n >= shift_elements;
        size_t wanted = (size_t)n * type->size;
        unsigned char *into = shifted ? at + (size_t)shift_elements * type->size : shift != 0 ? t->buffer : at;
        ssize_t got = pread_fully(t->fd, into, wanted, from);
        int err = errno;
        if (got == (ssize_t)wanted) {
            if (into == t->buffer)
                convert(t, type, false, at, t->buffer, (size_t)n);
            else if (same_bytes(t, type) && shifted)
                memmove(at, into, wanted);
            else if (shifted)
                swap_down(at, into, type->size, (size_t)n);
            else if (!same_bytes(t, type))
                swap_in_place(at, type->size, (size_t)n);
        }
        (*env)->ReleasePrimitiveArrayCritical(env, array, elements, 0);
        if (got < 0) {
            throw_io_error(env, path, "pread", err);
            return -1;
        }
        if ((size_t)got < wanted) {
            throw_exception(env, IO_EXCEPTION, path, "the file shrank while it was read");
            return -1;
        }
        done += n;
    }
    return (jlong)count * (jlong)type->size;
}

/* Whether [position, position + bytes) lies within the file now. */
static bool within_file(int fd, jlong position, jlong bytes)
{
    struct stat status;
    return fstat(fd, &status) == 0 && status.st_size >= position + bytes;
}

static jlong read_elements(JNIEnv *env, jobject file_descriptor, jstring path, jarray array, jint offset,
                           jint count, jlong position, jobject buffer, jint flags, const struct element_type *type)
{
    struct transfer t;
    if (!start_transfer(env, file_descriptor, path, array, offset, count, position, buffer, flags, type, &t))
        return -1;
    if (t.in_place && within_file(t.fd, position, (jlong)count * (jlong)type->size))
        return read_in_place(env, path, array, offset, count, position, type, &t);
    jlong bytes_read = 0;
    for (jint done = 0; done < count;) {
        jint n = count - done < t.chunk_elements ? count - done : t.chunk_elements;
        size_t wanted = (size_t)n * type->size;
        ssize_t got = pread_fully(t.fd, t.buffer, wanted, position + bytes_read);
        if (got < 0) {
            throw_io_error(env, path, "pread", errno);
            return -1;
        }
        jint whole = (jint)((size_t)got / type->size);
        if (whole > 0) {
            unsigned char *elements = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
            if (elements == NULL)
                return -1;
            convert(&t, type, false, elements + (size_t)(offset + done) * type->size, t.buffer, (size_t)whole);
            (*env)->ReleasePrimitiveArrayCritical(env, array, elements, 0);
        }
        bytes_read += got;
        if ((size_t)got < wanted)
            break;
        done += n;
    }
    return bytes_read;
}

#define FILE_ENTRY_POINTS(Name, ArrayType, element)                                                       \
    JNIEXPORT jlong JNICALL Java_org_jiobench_bulk_ArrayFileIO_write##Name(                              \
        JNIEnv *env, jclass cls, jobject fd, jstring path, ArrayType array, jint offset, jint count,    \
        jlong position, jobject buffer, jint flags)                                                     \
    {                                                                                                   \
        (void)cls;                                                                                      \
        return write_elements(env, fd, path, array, offset, count, position, buffer, flags, &element);  \
    }                                                                                                   \
    JNIEXPORT jlong JNICALL Java_org_jiobench_bulk_ArrayFileIO_read##Name(                               \
        JNIEnv *env, jclass cls, jobject fd, jstring path, ArrayType array, jint offset, jint count,    \
        jlong position, jobject buffer, jint flags)                                                     \
    {                                                                                                   \
        (void)cls;                                                                                      \
        return read_elements(env, fd, path, array, offset, count, position, buffer, flags, &element);   \
    }

FOR_EACH_PRIMITIVE_ARRAY(FILE_ENTRY_POINTS)
