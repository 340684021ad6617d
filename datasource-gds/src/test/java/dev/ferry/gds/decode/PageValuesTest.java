package dev.ferry.gds.decode;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PageValuesTest
{
    private static final PrimitiveType COLUMN = Types.required(PrimitiveType.PrimitiveTypeName.INT64).named("x");
    private static final ColumnDescriptor DESCRIPTOR = new ColumnDescriptor(new String[] {"x"}, COLUMN, 0, 0);

    // Blocks of 2^17 values in 4 mini blocks, 3 values, first 5; one block: min delta 1, widths 0: the values 5, 6, 7.
    private static final byte[] WIDE_BLOCKS = {(byte) 0x80, (byte) 0x80, 0x08, 0x04, 0x03, 0x0A, 0x02, 0x00, 0x00, 0x00, 0x00};

    @Test
    void deltaPagesAreHeldToTheConfiguredPageBound()
    {
        // A block of 2^17 values decodes to 1 MiB of longs: within a 2 MiB bound, past a 512 KiB one.
        PageValues roomy = new PageValues(DESCRIPTOR, FlatLayout.FIXED8, new RleHybridDecoder(), 2L << 20);
        roomy.load(Encoding.DELTA_BINARY_PACKED, ByteBuffer.wrap(WIDE_BLOCKS), 3, 3, false);
        assertEquals(PageValues.Mode.DELTA_LONGS, roomy.mode);
        assertEquals("[5, 6, 7]", Arrays.toString(Arrays.copyOf(roomy.decoded, 3)));

        PageValues tight = new PageValues(DESCRIPTOR, FlatLayout.FIXED8, new RleHybridDecoder(), 512L << 10);
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> tight.load(Encoding.DELTA_BINARY_PACKED, ByteBuffer.wrap(WIDE_BLOCKS), 3, 3, false));
        assertTrue(refused.getMessage().contains("decodes past the page bound of 524288 bytes"), refused.getMessage());
    }

    @Test
    void aBoundMustBePositive()
    {
        assertThrows(IllegalArgumentException.class, () -> new PageValues(DESCRIPTOR, FlatLayout.FIXED8, new RleHybridDecoder(), 0));
    }
}
