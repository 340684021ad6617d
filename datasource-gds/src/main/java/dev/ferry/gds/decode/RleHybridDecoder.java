package dev.ferry.gds.decode;

import org.apache.parquet.column.values.bitpacking.BytePacker;
import org.apache.parquet.column.values.bitpacking.Packer;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Bulk decoding of Parquet's RLE / bit-packed hybrid (definition levels, dictionary indexes) into an
 * int array; parquet-mr's decoder hands out one value per call. Runs longer than the values wanted
 * are cut, so a corrupt header cannot make it write beyond {@code count}; running out of input
 * throws.
 */
final class RleHybridDecoder
{
    private final int[] unpacked = new int[8];

    void decode(ByteBuffer input, int bitWidth, int count, int[] output)
    {
        if (bitWidth < 0 || bitWidth > 32) {
            throw new IllegalArgumentException("bit width " + bitWidth + " outside 0..32");
        }
        BytePacker packer = Packer.LITTLE_ENDIAN.newBytePacker(bitWidth);
        int byteWidth = (bitWidth + 7) / 8;
        int produced = 0;
        while (produced < count) {
            int header = readUnsignedVarInt(input);
            if ((header & 1) == 0) {
                int run = header >>> 1;
                int value = 0;
                for (int index = 0; index < byteWidth; index++) {
                    value |= (input.get() & 0xFF) << (8 * index);
                }
                int take = Math.min(run, count - produced);
                if (take <= 0) {
                    throw new IllegalStateException("empty RLE run");
                }
                Arrays.fill(output, produced, produced + take, value);
                produced += take;
            }
            else {
                int groups = header >>> 1;
                if (groups == 0) {
                    throw new IllegalStateException("empty bit-packed run");
                }
                if ((long) groups * bitWidth > input.remaining()) {
                    throw new IllegalStateException("bit-packed run of " + groups + " groups runs past the end of its data");
                }
                int group = 0;
                if (bitWidth != 0 && input.hasArray()) {
                    // Straight into the output from the page array: 32 values per call while they fit,
                    // then 8; the ByteBuffer variant reads byte by byte through bounds checks.
                    byte[] array = input.array();
                    int position = input.arrayOffset() + input.position();
                    while (group + 4 <= groups && produced + 32 <= count) {
                        packer.unpack32Values(array, position, output, produced);
                        position += 4 * bitWidth;
                        produced += 32;
                        group += 4;
                    }
                    while (group < groups && produced + 8 <= count) {
                        packer.unpack8Values(array, position, output, produced);
                        position += bitWidth;
                        produced += 8;
                        group++;
                    }
                    input.position(position - input.arrayOffset());
                }
                for (; group < groups; group++) {
                    if (bitWidth == 0) {
                        // The width-0 packer writes nothing; the values are all zero.
                        Arrays.fill(unpacked, 0);
                    }
                    else {
                        packer.unpack8Values(input, input.position(), unpacked, 0);
                    }
                    input.position(input.position() + bitWidth);
                    int take = Math.min(8, count - produced);
                    if (take > 0) {
                        System.arraycopy(unpacked, 0, output, produced, take);
                        produced += take;
                    }
                }
            }
        }
    }

    private static int readUnsignedVarInt(ByteBuffer input)
    {
        int value = 0;
        int shift = 0;
        while (true) {
            int next = input.get() & 0xFF;
            value |= (next & 0x7F) << shift;
            if ((next & 0x80) == 0) {
                return value;
            }
            shift += 7;
            if (shift > 28) {
                throw new IllegalStateException("varint longer than 5 bytes");
            }
        }
    }
}
