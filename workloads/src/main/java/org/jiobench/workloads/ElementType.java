package org.jiobench.workloads;

import java.util.Locale;
import java.util.function.IntFunction;

/** The primitive types an array may hold, with their size on disk as {@code DataOutput} writes them. */
public enum ElementType {
    BYTE(Byte.BYTES, ByteElements::new),
    INT(Integer.BYTES, IntElements::new),
    LONG(Long.BYTES, LongElements::new),
    FLOAT(Float.BYTES, FloatElements::new),
    DOUBLE(Double.BYTES, DoubleElements::new);

    private final int bytes;
    private final IntFunction<ElementArray> factory;

    ElementType(int bytes, IntFunction<ElementArray> factory) {
        this.bytes = bytes;
        this.factory = factory;
    }

    public int bytes() {
        return bytes;
    }

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public ElementArray newArray(int length) {
        return factory.apply(length);
    }

    public static ElementType fromId(String id) {
        for (ElementType type : values()) {
            if (type.id().equals(id)) return type;
        }
        throw new IllegalArgumentException("unknown type '" + id + "' (expected byte, int, long, float or double)");
    }
}
