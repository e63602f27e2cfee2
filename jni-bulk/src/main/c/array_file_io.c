/*
 * BulkRandomAccessFile's transfers: pread/pwrite of a primitive array at a file position.
 *
 * The one copy of the data is the conversion between the array, held through
 * GetPrimitiveArrayCritical, and a bounce buffer (a direct ByteBuffer the Java side keeps or makes
 * per call). The critical region covers only that conversion of one chunk: the system call runs
 * after the array is released, so no thread ever waits on I/O while the garbage collector waits
 * on it. byte[] takes the same path (its conversion is a memcpy) for the same reason.
 */
#include "org_jiobench_bulk_ArrayFileIO.h"

#include <errno.h>
#include <stdint.h>

#include "java_arrays.h"
#include "jni_support.h"
#include "posix_io.h"

struct transfer {
    int fd;
    unsigned char *buffer;
    jint chunk_elements; /* whole elements that fit in the buffer */
};

/* Checks every argument before any memory is touched; false with an exception pending if one is wrong. */
static bool start_transfer(JNIEnv *env, jobject file_descriptor, jstring path, jarray array, jint offset,
                           jint count, jlong position, jobject buffer, const struct element_type *type,
                           struct transfer *transfer)
{
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

static jlong write_elements(JNIEnv *env, jobject file_descriptor, jstring path, jarray array, jint offset,
                            jint count, jlong position, jobject buffer, const struct element_type *type)
{
    struct transfer t;
    if (!start_transfer(env, file_descriptor, path, array, offset, count, position, buffer, type, &t))
        return -1;
    for (jint done = 0; done < count;) {
        jint n = count - done < t.chunk_elements ? count - done : t.chunk_elements;
        unsigned char *elements = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
        if (elements == NULL)
            return -1;
        type->to_big_endian(t.buffer, elements + (size_t)(offset + done) * type->size, (size_t)n);
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
static jlong read_elements(JNIEnv *env, jobject file_descriptor, jstring path, jarray array, jint offset,
                           jint count, jlong position, jobject buffer, const struct element_type *type)
{
    struct transfer t;
    if (!start_transfer(env, file_descriptor, path, array, offset, count, position, buffer, type, &t))
        return -1;
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
            type->from_big_endian(elements + (size_t)(offset + done) * type->size, t.buffer, (size_t)whole);
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
        jlong position, jobject buffer)                                                                 \
    {                                                                                                   \
        (void)cls;                                                                                      \
        return write_elements(env, fd, path, array, offset, count, position, buffer, &element);         \
    }                                                                                                   \
    JNIEXPORT jlong JNICALL Java_org_jiobench_bulk_ArrayFileIO_read##Name(                               \
        JNIEnv *env, jclass cls, jobject fd, jstring path, ArrayType array, jint offset, jint count,    \
        jlong position, jobject buffer)                                                                 \
    {                                                                                                   \
        (void)cls;                                                                                      \
        return read_elements(env, fd, path, array, offset, count, position, buffer, &element);          \
    }

FOR_EACH_PRIMITIVE_ARRAY(FILE_ENTRY_POINTS)
