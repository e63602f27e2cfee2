package org.jiobench.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The verifier's own idea of the file, against the JDK's DataOutputStream writing the pattern's values. */
class ExpectedDataTest {
    private static final long SEED = 11;

    @ParameterizedTest
    @EnumSource(ElementType.class)
    void matchesWhatDataOutputWritesForThePatternValues(ElementType type) throws IOException {
        int count = 1000;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        for (long g = 500; g < 500 + count; g++) {
            switch (type) {
                case BYTE -> out.writeByte((int) Pattern.bits(g, SEED));
                case INT -> out.writeInt((int) Pattern.bits(g, SEED));
                case LONG -> out.writeLong(Pattern.bits(g, SEED));
                case FLOAT -> out.writeFloat(Pattern.floatValue(g, SEED));
                case DOUBLE -> out.writeDouble(Pattern.doubleValue(g, SEED));
            }
        }
        byte[] expected = new byte[count * type.bytes()];
        ExpectedData.bytes(type, 500, SEED, ByteOrder.BIG_ENDIAN, expected, expected.length);
        assertArrayEquals(bytes.toByteArray(), expected);
        byte[] little = new byte[expected.length];
        ExpectedData.bytes(type, 500, SEED, ByteOrder.LITTLE_ENDIAN, little, little.length);
        for (int i = 0; i < little.length; i++) {
            int element = i / type.bytes() * type.bytes();
            assertEquals(expected[element + type.bytes() - 1 - i % type.bytes()], little[i], "byte " + i);
        }
    }

    @ParameterizedTest
    @EnumSource(ElementType.class)
    void aTransferCutInsideAnElementHoldsThePrefixOfTheWholeOne(ElementType type) {
        for (ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            byte[] whole = new byte[16 * type.bytes()];
            ExpectedData.bytes(type, 77, SEED, order, whole, whole.length);
            for (int end = 0; end <= whole.length; end++) {
                byte[] cut = new byte[whole.length];
                ExpectedData.bytes(type, 77, SEED, order, cut, end);
                assertArrayEquals(Arrays.copyOf(whole, end), Arrays.copyOf(cut, end), order + ", " + end + " bytes");
                assertEquals(-1, Arrays.mismatch(new byte[whole.length - end], 0, whole.length - end, cut, end,
                        whole.length), "nothing written past byte " + end);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ElementType.class)
    void namesTheFirstWrongByteOfATypedArrayInFileOrder(ElementType type) {
        TransferBuffer buffer = new TransferBuffer(DataForm.TYPED, type, 64 * type.bytes(), SEED, ByteOrder.BIG_ENDIAN);
        buffer.prepare(0);
        assertEquals(-1, buffer.firstWrongByte(0));
        ElementArray elements = buffer.elements();
        // Flip the lowest bit of element 5: its last byte in big-endian order is the wrong one.
        switch (type) {
            case BYTE -> ((ByteElements) elements).values[5] ^= 1;
            case INT -> ((IntElements) elements).values[5] ^= 1;
            case LONG -> ((LongElements) elements).values[5] ^= 1;
            case FLOAT -> ((FloatElements) elements).values[5] =
                    Float.intBitsToFloat(Float.floatToRawIntBits(((FloatElements) elements).values[5]) ^ 1);
            case DOUBLE -> ((DoubleElements) elements).values[5] =
                    Double.longBitsToDouble(Double.doubleToRawLongBits(((DoubleElements) elements).values[5]) ^ 1);
        }
        assertEquals(6 * type.bytes() - 1, buffer.firstWrongByte(0));
        TransferBuffer little = new TransferBuffer(DataForm.TYPED, type, 64 * type.bytes(), SEED, ByteOrder.LITTLE_ENDIAN);
        little.prepare(0);
        assertEquals(-1, little.firstWrongByte(0));
        assertEquals(-1, buffer.firstWrongByte(0, 5 * type.bytes()), "the wrong element lies beyond the checked bytes");
    }
}
