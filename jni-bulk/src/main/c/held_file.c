#define _GNU_SOURCE /* O_PATH */
/* HeldFile: a file named by a descriptor of its own rather than by its path. */
#include "org_jiobench_bulk_HeldFile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "jni_support.h"

#define FILE_EXISTS_EXCEPTION "java/nio/file/FileAlreadyExistsException"

/* FileAlreadyExistsException, whose one argument is the file. */
static void throw_file_exists(JNIEnv *env, jstring path)
{
    jclass type = (*env)->FindClass(env, FILE_EXISTS_EXCEPTION);
    if (type == NULL)
        return;
    jmethodID constructor = (*env)->GetMethodID(env, type, "<init>", "(Ljava/lang/String;)V");
    if (constructor == NULL)
        return;
    jobject exception = (*env)->NewObject(env, type, constructor, path);
    if (exception != NULL)
        (*env)->Throw(env, (jthrowable)exception);
}

/* O_CLOEXEC: the tools the runner starts (lfs, setfattr) inherit none of the files it holds. */
static int hold_descriptor(JNIEnv *env, const char *name, jstring path, int flags)
{
    int fd = open(name, O_PATH | O_CLOEXEC | flags);
    if (fd < 0)
        throw_io_error(env, path, "open", errno);
    return fd;
}

JNIEXPORT jint JNICALL Java_org_jiobench_bulk_HeldFile_hold(JNIEnv *env, jclass cls, jbyteArray native_name,
                                                          jstring path)
{
    (void)cls;
    char name[PATH_MAX];
    if (!native_path(env, native_name, name))
        return -1;
    return hold_descriptor(env, name, path, O_NOFOLLOW);
}

JNIEXPORT jint JNICALL Java_org_jiobench_bulk_HeldFile_create(JNIEnv *env, jclass cls, jbyteArray native_name,
                                                            jstring path)
{
    (void)cls;
    char name[PATH_MAX];
    if (!native_path(env, native_name, name))
        return -1;
    int created = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (created < 0) {
        if (errno == EEXIST)
            throw_file_exists(env, path);
        else
            throw_io_error(env, path, "open", errno);
        return -1;
    }
    /* The held descriptor opens nothing; the one that created the file goes at once. Reached through
     * the creating descriptor, it is the created file whatever the path names by now. */
    char own[32];
    snprintf(own, sizeof own, "/proc/self/fd/%d", created);
    int fd = hold_descriptor(env, own, path, 0);
    close(created);
    return fd;
}
