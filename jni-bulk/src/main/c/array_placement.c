/* ArrayPlacement: where the JVM holds an array's first element, as a system call would be handed it. */
#include "org_jiobench_bulk_ArrayPlacement.h"

#include <stdint.h>

#define PAGE 4096

/* The Java side has checked that array is a primitive array. HotSpot pins it for the moment of the
 * look (a copy, on a JVM that made one, would say nothing of the array: HotSpot never does). */
JNIEXPORT jint JNICALL Java_org_jiobench_bulk_ArrayPlacement_firstElementPageOffset(JNIEnv *env, jclass cls,
                                                                                    jobject array)
{
    (void)cls;
    void *elements = (*env)->GetPrimitiveArrayCritical(env, (jarray)array, NULL);
    if (elements == NULL)
        return -1;
    jint offset = (jint)((uintptr_t)elements % PAGE);
    (*env)->ReleasePrimitiveArrayCritical(env, (jarray)array, elements, JNI_ABORT);
    return offset;
}
