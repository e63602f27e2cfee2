/* Descriptor: a file descriptor of this process, closed once. */
#include "org_jiobench_bulk_Descriptor.h"

#include <errno.h>
#include <unistd.h>

#include "jni_support.h"

JNIEXPORT void JNICALL Java_org_jiobench_bulk_Descriptor_close(JNIEnv *env, jclass cls, jint fd, jstring path)
{
    (void)cls;
    /* Linux releases the descriptor even when close reports EINTR; retrying could close another file. */
    if (close(fd) < 0 && errno != EINTR)
        throw_io_error(env, path, "close", errno);
}
