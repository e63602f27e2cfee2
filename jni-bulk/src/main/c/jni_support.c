#include "jni_support.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

jmethodID before_transfer_method;
jmethodID after_transfer_method;
static jfieldID file_descriptor_fd;

/* IDs are looked up once here rather than on each call; they stay valid while the classes are
 * loaded, which is as long as this library is. */
JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    JNIEnv *env;
    (void)reserved;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK)
        return JNI_ERR;
    jclass file_descriptor = (*env)->FindClass(env, "java/io/FileDescriptor");
    if (file_descriptor == NULL)
        return JNI_ERR;
    file_descriptor_fd = (*env)->GetFieldID(env, file_descriptor, "fd", "I");
    if (file_descriptor_fd == NULL)
        return JNI_ERR;
    jclass callback = (*env)->FindClass(env, "org/jiobench/bulk/TransferCallback");
    if (callback == NULL)
        return JNI_ERR;
    before_transfer_method = (*env)->GetMethodID(env, callback, "beforeTransfer", "(I)Z");
    after_transfer_method = (*env)->GetMethodID(env, callback, "afterTransfer", "(I)V");
    if (before_transfer_method == NULL || after_transfer_method == NULL)
        return JNI_ERR;
    return JNI_VERSION_1_8;
}

void throw_exception(JNIEnv *env, const char *class_name, jstring path, const char *format, ...)
{
    jclass type = (*env)->FindClass(env, class_name);
    if (type == NULL)
        return;
    const char *name = NULL;
    if (path != NULL && (name = (*env)->GetStringUTFChars(env, path, NULL)) == NULL)
        return;

    va_list args;
    va_start(args, format);
    int detail = vsnprintf(NULL, 0, format, args);
    va_end(args);
    size_t size = (name != NULL ? strlen(name) + 2 : 0) + (size_t)detail + 1;
    char *message = malloc(size);
    if (message != NULL) {
        int used = name != NULL ? snprintf(message, size, "%s: ", name) : 0;
        va_start(args, format);
        vsnprintf(message + used, size - (size_t)used, format, args);
        va_end(args);
    }
    if (name != NULL)
        (*env)->ReleaseStringUTFChars(env, path, name);
    /* Without memory for the message, its template still says what went wrong. */
    (*env)->ThrowNew(env, type, message != NULL ? message : format);
    free(message);
}

void throw_io_error(JNIEnv *env, jstring path, const char *call, int err)
{
    char reason[256];
    if (strerror_r(err, reason, sizeof reason) != 0)
        snprintf(reason, sizeof reason, "error %d", err);
    throw_exception(env, IO_EXCEPTION, path, "%s: %s", call, reason);
}

bool check_array_range(JNIEnv *env, jarray array, jint offset, jint count)
{
    if (array == NULL) {
        throw_exception(env, NULL_POINTER_EXCEPTION, NULL, "array is null");
        return false;
    }
    jsize length = (*env)->GetArrayLength(env, array);
    /* length - count cannot overflow once count is known to be non-negative. */
    if (offset < 0 || count < 0 || offset > length - count) {
        throw_exception(env, OUT_OF_BOUNDS_EXCEPTION, NULL,
                        "Range [%d, %d + %d) out of bounds for length %d", offset, offset, count, length);
        return false;
    }
    return true;
}

void *direct_buffer(JNIEnv *env, jobject buffer, jlong *capacity)
{
    if (buffer == NULL) {
        throw_exception(env, NULL_POINTER_EXCEPTION, NULL, "buffer is null");
        return NULL;
    }
    void *address = (*env)->GetDirectBufferAddress(env, buffer);
    if (address == NULL) {
        throw_exception(env, ILLEGAL_ARGUMENT_EXCEPTION, NULL, "buffer is not a direct buffer");
        return NULL;
    }
    *capacity = (*env)->GetDirectBufferCapacity(env, buffer);
    return address;
}

int descriptor_of(JNIEnv *env, jobject file_descriptor, jstring path)
{
    if (file_descriptor == NULL) {
        throw_exception(env, NULL_POINTER_EXCEPTION, NULL, "file descriptor is null");
        return -1;
    }
    jint fd = (*env)->GetIntField(env, file_descriptor, file_descriptor_fd);
    if (fd < 0)
        throw_exception(env, IO_EXCEPTION, path, "closed");
    return fd;
}

bool native_path(JNIEnv *env, jbyteArray bytes, char name[PATH_MAX])
{
    if (bytes == NULL) {
        throw_exception(env, NULL_POINTER_EXCEPTION, NULL, "path is null");
        return false;
    }
    jsize length = (*env)->GetArrayLength(env, bytes);
    if (length < 1 || length > PATH_MAX) {
        throw_exception(env, ILLEGAL_ARGUMENT_EXCEPTION, NULL,
                        "a path of %d bytes with its NUL is not between 1 and PATH_MAX (%d)", length, PATH_MAX);
        return false;
    }
    (*env)->GetByteArrayRegion(env, bytes, 0, length, (jbyte *)name);
    if (memchr(name, '\0', (size_t)length) != name + length - 1) {
        throw_exception(env, ILLEGAL_ARGUMENT_EXCEPTION, NULL, "path is not terminated by its only NUL byte");
        return false;
    }
    return true;
}
