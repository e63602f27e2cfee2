/* What every entry point needs: Java exceptions from C, argument checks, cached Java member IDs. */
#ifndef JIOBENCH_JNI_SUPPORT_H
#define JIOBENCH_JNI_SUPPORT_H

#include <jni.h>
#include <limits.h>
#include <stdbool.h>

#define NULL_POINTER_EXCEPTION "java/lang/NullPointerException"
#define OUT_OF_BOUNDS_EXCEPTION "java/lang/IndexOutOfBoundsException"
#define ILLEGAL_ARGUMENT_EXCEPTION "java/lang/IllegalArgumentException"
#define IO_EXCEPTION "java/io/IOException"
#define EOF_EXCEPTION "java/io/EOFException"

/* TransferCallback.beforeTransfer(int) and afterTransfer(int), looked up when the library loads. */
extern jmethodID before_transfer_method;
extern jmethodID after_transfer_method;

/* Each throw_ function leaves a Java exception pending; the caller returns to Java at once. */

/* Throws class_name with the message "<path>: <format...>", or just "<format...>" if path is NULL. */
void throw_exception(JNIEnv *env, const char *class_name, jstring path, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* Throws IOException "<path>: <call>: <strerror(err)>" for a failed system call. */
void throw_io_error(JNIEnv *env, jstring path, const char *call, int err);

/* Checks that array is not null and that [offset, offset + count) lies within it. */
bool check_array_range(JNIEnv *env, jarray array, jint offset, jint count);

/* The memory and capacity of a direct ByteBuffer; NULL (with an exception) if buffer is null or not direct. */
void *direct_buffer(JNIEnv *env, jobject buffer, jlong *capacity);

/* The descriptor a java.io.FileDescriptor holds; -1 (with an exception) if it is null or closed. */
int descriptor_of(JNIEnv *env, jobject file_descriptor, jstring path);

/* Copies a NUL-terminated path in the platform's encoding into name; false (with an exception) if
 * the bytes are null, longer than PATH_MAX or not terminated by their only NUL. */
bool native_path(JNIEnv *env, jbyteArray bytes, char name[PATH_MAX]);

#endif
