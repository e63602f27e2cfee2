/*
 * BulkDataInputStream's and BulkDataOutputStream's conversion between a primitive array and a
 * byte[] chunk, which the Java side then hands to the wrapped stream. Both arrays are held through
 * GetPrimitiveArrayCritical (nesting is allowed) for the one copy and nothing else.
 */
#include "org_jiobench_bulk_BigEndianCodec.h"

#include "java_arrays.h"
#include "jni_support.h"

/* Checks every argument before any memory is touched: the element range, and room in the chunk. */
static bool check_arguments(JNIEnv *env, jarray elements, jint offset, jint count, jbyteArray chunk,
                            const struct element_type *type)
{
    if (!check_array_range(env, elements, offset, count))
        return false;
    if (chunk == NULL) {
        throw_exception(env, NULL_POINTER_EXCEPTION, NULL, "chunk is null");
        return false;
    }
    jsize length = (*env)->GetArrayLength(env, chunk);
    if ((jlong)count * (jlong)type->size > length) {
        throw_exception(env, OUT_OF_BOUNDS_EXCEPTION, NULL, "%d elements of %zu bytes overflow a chunk of %d bytes",
                        count, type->size, length);
        return false;
    }
    return true;
}

/* Release modes as in array_file_io.c: JNI_ABORT for the array only read, 0 for the one written. */
static void encode(JNIEnv *env, jarray src, jint offset, jint count, jbyteArray dst, const struct element_type *type)
{
    if (!check_arguments(env, src, offset, count, dst, type))
        return;
    unsigned char *bytes = (*env)->GetPrimitiveArrayCritical(env, dst, NULL);
    if (bytes == NULL)
        return;
    unsigned char *elements = (*env)->GetPrimitiveArrayCritical(env, src, NULL);
    if (elements != NULL) {
        type->to_big_endian(bytes, elements + (size_t)offset * type->size, (size_t)count);
        (*env)->ReleasePrimitiveArrayCritical(env, src, elements, JNI_ABORT);
    }
    (*env)->ReleasePrimitiveArrayCritical(env, dst, bytes, 0);
}

static void decode(JNIEnv *env, jbyteArray src, jarray dst, jint offset, jint count, const struct element_type *type)
{
    if (!check_arguments(env, dst, offset, count, src, type))
        return;
    unsigned char *bytes = (*env)->GetPrimitiveArrayCritical(env, src, NULL);
    if (bytes == NULL)
        return;
    unsigned char *elements = (*env)->GetPrimitiveArrayCritical(env, dst, NULL);
    if (elements != NULL) {
        type->from_big_endian(elements + (size_t)offset * type->size, bytes, (size_t)count);
        (*env)->ReleasePrimitiveArrayCritical(env, dst, elements, 0);
    }
    (*env)->ReleasePrimitiveArrayCritical(env, src, bytes, JNI_ABORT);
}

#define CODEC_ENTRY_POINTS(Name, ArrayType, element)                                                  \
    JNIEXPORT void JNICALL Java_org_jiobench_bulk_BigEndianCodec_encode##Name(                       \
        JNIEnv *env, jclass cls, ArrayType src, jint offset, jint count, jbyteArray dst)            \
    {                                                                                               \
        (void)cls;                                                                                  \
        encode(env, src, offset, count, dst, &element);                                             \
    }                                                                                               \
    JNIEXPORT void JNICALL Java_org_jiobench_bulk_BigEndianCodec_decode##Name(                       \
        JNIEnv *env, jclass cls, jbyteArray src, ArrayType dst, jint offset, jint count)            \
    {                                                                                               \
        (void)cls;                                                                                  \
        decode(env, src, dst, offset, count, &element);                                             \
    }

FOR_EACH_NON_BYTE_ARRAY(CODEC_ENTRY_POINTS)
