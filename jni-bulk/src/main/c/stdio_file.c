#define _GNU_SOURCE /* fileno, fseeko */
/*
 * StdioFile: C's buffered I/O, fwrite/fread through a FILE whose buffer is setvbuf'd to the run's
 * buffer size, a batch of operations per JNI call: the C partner of Java's buffered streams.
 */
#include "org_jiobench_bulk_StdioFile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "jni_support.h"
#include "posix_io.h"

/* A stream and where it stands, so that only an operation that does not follow the last one seeks. */
struct stdio_file {
    FILE *stream;
    char *buffer;
    jlong position;
};

static struct stdio_file *file_of(JNIEnv *env, jlong handle)
{
    if (handle == 0)
        throw_exception(env, IO_EXCEPTION, NULL, "the file is closed");
    return (struct stdio_file *)(intptr_t)handle;
}

JNIEXPORT jlong JNICALL Java_org_jiobench_bulk_StdioFile_open(JNIEnv *env, jclass cls, jbyteArray native_name,
                                                            jstring path, jboolean for_write, jint buffer_size)
{
    (void)cls;
    char name[PATH_MAX];
    if (!native_path(env, native_name, name))
        return 0;
    if (buffer_size <= 0) {
        throw_exception(env, ILLEGAL_ARGUMENT_EXCEPTION, path, "buffer size %d is not positive", buffer_size);
        return 0;
    }
    struct stdio_file *file = calloc(1, sizeof *file);
    char *buffer = malloc((size_t)buffer_size);
    if (file == NULL || buffer == NULL) {
        free(file);
        free(buffer);
        throw_exception(env, "java/lang/OutOfMemoryError", path, "a stdio buffer of %d bytes", buffer_size);
        return 0;
    }
    /* As PosixFile opens: no O_TRUNC, ranks write their own parts of one file; fdopen's "w" does not truncate. */
    int fd = open(name, (for_write ? O_WRONLY | O_CREAT : O_RDONLY) | O_CLOEXEC, 0666);
    FILE *stream = fd < 0 ? NULL : fdopen(fd, for_write ? "w" : "r");
    if (stream == NULL || setvbuf(stream, buffer, _IOFBF, (size_t)buffer_size) != 0) {
        int err = errno;
        if (stream != NULL)
            fclose(stream);
        else if (fd >= 0)
            close(fd);
        free(file);
        free(buffer);
        throw_io_error(env, path, fd < 0 ? "open" : "fdopen", err);
        return 0;
    }
    file->stream = stream;
    file->buffer = buffer;
    file->position = -1;
    return (jlong)(intptr_t)file;
}

JNIEXPORT jint JNICALL Java_org_jiobench_bulk_StdioFile_transferBatch(JNIEnv *env, jclass cls, jlong handle,
                                                                    jstring path, jboolean write, jobject buffer,
                                                                    jint length, jlongArray offsets,
                                                                    jlong nanos_left)
{
    (void)cls;
    struct stdio_file *file = file_of(env, handle);
    jlong capacity;
    unsigned char *data = file == NULL ? NULL : direct_buffer(env, buffer, &capacity);
    if (data == NULL)
        return -1;
    if (offsets == NULL) {
        throw_exception(env, NULL_POINTER_EXCEPTION, NULL, "offsets is null");
        return -1;
    }
    jsize count = (*env)->GetArrayLength(env, offsets);
    if (length < 0 || (jlong)length * count > capacity) {
        throw_exception(env, OUT_OF_BOUNDS_EXCEPTION, NULL,
                        "%d transfer(s) of length %d out of bounds for a buffer of capacity %lld", count, length,
                        (long long)capacity);
        return -1;
    }
    jlong *at = (*env)->GetLongArrayElements(env, offsets, NULL);
    if (at == NULL)
        return -1;
    int64_t deadline = deadline_after(nanos_left);
    jint done = count;
    for (jsize k = 0; k < count; k++) {
        if (deadline_passed(deadline, k)) {
            done = k;
            break;
        }
        if (at[k] != file->position && fseeko(file->stream, at[k], SEEK_SET) != 0) {
            throw_io_error(env, path, "fseeko", errno);
            done = -1;
            break;
        }
        unsigned char *bytes = data + (size_t)k * (size_t)length;
        size_t moved = write ? fwrite(bytes, 1, (size_t)length, file->stream)
                             : fread(bytes, 1, (size_t)length, file->stream);
        if (moved != (size_t)length) {
            if (!write && feof(file->stream))
                throw_exception(env, EOF_EXCEPTION, path, "end of file after %zu of %d bytes at offset %lld", moved,
                                length, (long long)at[k]);
            else
                throw_io_error(env, path, write ? "fwrite" : "fread", errno);
            file->position = -1;
            done = -1;
            break;
        }
        file->position = at[k] + length;
    }
    (*env)->ReleaseLongArrayElements(env, offsets, at, JNI_ABORT);
    return done;
}

JNIEXPORT void JNICALL Java_org_jiobench_bulk_StdioFile_sync(JNIEnv *env, jclass cls, jlong handle, jstring path)
{
    (void)cls;
    struct stdio_file *file = file_of(env, handle);
    if (file == NULL)
        return;
    if (fflush(file->stream) != 0)
        throw_io_error(env, path, "fflush", errno);
    else if (fsync(fileno(file->stream)) != 0)
        throw_io_error(env, path, "fsync", errno);
}

JNIEXPORT void JNICALL Java_org_jiobench_bulk_StdioFile_close(JNIEnv *env, jclass cls, jlong handle, jstring path)
{
    (void)cls;
    struct stdio_file *file = file_of(env, handle);
    if (file == NULL)
        return;
    /* fclose writes what the buffer still holds, then releases the descriptor even when that fails. */
    int closed = fclose(file->stream);
    int err = errno;
    free(file->buffer);
    free(file);
    if (closed != 0)
        throw_io_error(env, path, "fclose", err);
}
