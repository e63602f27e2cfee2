/* The eight primitive array types, for generating one JNI entry point per type. */
#ifndef JIOBENCH_JAVA_ARRAYS_H
#define JIOBENCH_JAVA_ARRAYS_H

#include "byte_order.h"

/* X(name in native method names, JNI array type, struct element_type): the types a stream must
 * convert; it reads and writes a byte[] as it is. */
#define FOR_EACH_NON_BYTE_ARRAY(X)                 \
    X(Booleans, jbooleanArray, element_boolean)    \
    X(Chars, jcharArray, element_char)             \
    X(Shorts, jshortArray, element_short)          \
    X(Ints, jintArray, element_int)                \
    X(Longs, jlongArray, element_long)             \
    X(Floats, jfloatArray, element_float)          \
    X(Doubles, jdoubleArray, element_double)

#define FOR_EACH_PRIMITIVE_ARRAY(X)                \
    FOR_EACH_NON_BYTE_ARRAY(X)                     \
    X(Bytes, jbyteArray, element_byte)

#endif
