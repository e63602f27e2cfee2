/* Conversion between the memory of Java primitive arrays and the big-endian bytes of DataOutput. */
#ifndef JIOBENCH_BYTE_ORDER_H
#define JIOBENCH_BYTE_ORDER_H

#include <stddef.h>

/* Converts count elements from src to dst; the two must not overlap. Neither needs to be aligned. */
typedef void element_convert_fn(void *restrict dst, const void *restrict src, size_t count);

struct element_type {
    size_t size;                         /* bytes per element, in a Java array and in the file alike */
    element_convert_fn *to_big_endian;   /* what DataOutput.writeX would write */
    element_convert_fn *from_big_endian; /* what DataInput.readX would return */
};

extern const struct element_type element_boolean;
extern const struct element_type element_byte;
extern const struct element_type element_char;
extern const struct element_type element_short;
extern const struct element_type element_int;
extern const struct element_type element_long;
extern const struct element_type element_float;
extern const struct element_type element_double;

#endif
