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

/* A copy that reverses the bytes of each element of size bytes (2, 4 or 8; 1 copies as it is),
 * with no other change: between a C array and the opposite byte order. */
element_convert_fn *swapping_copy(size_t size);

/* Reverses the bytes of each of count elements of size bytes (2, 4 or 8; 1 leaves them) in place. */
void swap_in_place(void *data, size_t size, size_t count);

/* Reverses the bytes of each of count elements of size bytes while moving them from src to dst, which
 * lies at or below src; the ranges may overlap. */
void swap_down(void *dst, const void *src, size_t size, size_t count);

#endif
