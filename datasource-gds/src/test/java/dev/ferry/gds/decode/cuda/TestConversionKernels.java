package dev.ferry.gds.decode.cuda;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The conversion kernels the corpus does not reach through the decoder (timestamps in MILLIS/NANOS,
 * FIXED_LEN_BYTE_ARRAY decimals, INT96 extremes) against Java's own arithmetic (Math.multiplyExact,
 * Math.floorDiv, BigInteger), on both the kernels' sources compiled for the host and the Java emulation.
 */
class TestConversionKernels
{
    @RegisterExtension
    static final KernelImplementations KERNELS = new KernelImplementations();

    @Test
    void timestampsScaleAsJavaDoes()
    {
        Random random = new Random(18);
        long[] values = new long[1000];
        for (int i = 0; i < values.length; i++) {
            values[i] = switch (i % 4) {
                case 0 -> random.nextLong();
                case 1 -> random.nextInt();
                case 2 -> -random.nextInt(5000);
                default -> Long.MAX_VALUE / 1000 - i;
            };
        }
        for (DecodeKernels kernels : KERNELS.all()) {
            for (int[] scale : new int[][] {{1000, 1}, {1, 1000}, {1, 1}}) {
                long[] expected = new long[values.length];
                int expectedErrors = 0;
                for (int i = 0; i < values.length; i++) {
                    try {
                        expected[i] = Math.floorDiv(Math.multiplyExact(values[i], (long) scale[0]), (long) scale[1]);
                    }
                    catch (ArithmeticException e) {
                        expected[i] = 0;
                        expectedErrors = 2;
                    }
                }
                long in = KernelTestBytes.upload(kernels, KernelTestBytes.longs(values));
                long out = kernels.allocate(8L * values.length);
                long errors = KernelTestBytes.upload(kernels, new byte[4]);
                kernels.timestampToMicros(in, values.length, scale[0], scale[1], out, errors);
                assertArrayEquals(KernelTestBytes.longs(expected), KernelTestBytes.download(kernels, out, 8 * values.length), kernels.describe() + " scale " + scale[0] + "/" + scale[1]);
                assertEquals(expectedErrors, ByteBuffer.wrap(KernelTestBytes.download(kernels, errors, 4)).order(ByteOrder.LITTLE_ENDIAN).getInt(), kernels.describe());
                kernels.free(in);
                kernels.free(out);
                kernels.free(errors);
            }
        }
    }

    @Test
    void bigEndianDecimalsOfEveryWidthSignExtendTo128Bits()
    {
        Random random = new Random(18);
        for (DecodeKernels kernels : KERNELS.all()) {
            for (int width = 1; width <= 16; width++) {
                int count = 200;
                byte[] in = new byte[count * width];
                random.nextBytes(in);
                byte[] expected = new byte[count * 16];
                for (int i = 0; i < count; i++) {
                    byte[] bigEndian = java.util.Arrays.copyOfRange(in, i * width, (i + 1) * width);
                    byte[] wide = new BigInteger(bigEndian).toByteArray();
                    // BigInteger's big-endian minimal bytes, sign-extended to 16 and reversed: Arrow's little-endian decimal128.
                    byte fill = (byte) (bigEndian[0] < 0 ? 0xFF : 0);
                    for (int b = 0; b < 16; b++) {
                        int fromEnd = wide.length - 1 - b;
                        expected[i * 16 + b] = fromEnd >= 0 ? wide[fromEnd] : fill;
                    }
                }
                long input = KernelTestBytes.upload(kernels, in);
                long out = kernels.allocate(16L * count);
                long errors = KernelTestBytes.upload(kernels, new byte[4]);
                kernels.decimalTo128(input, count, width, 1, out, errors);
                assertArrayEquals(expected, KernelTestBytes.download(kernels, out, 16 * count), kernels.describe() + " width " + width);
                kernels.free(input);
                kernels.free(out);
                kernels.free(errors);
            }
        }
    }

    @Test
    void int96ExtremesWrapAsJavaLongArithmetic()
    {
        ByteBuffer values = ByteBuffer.allocate(12 * 4).order(ByteOrder.LITTLE_ENDIAN);
        long[][] cases = {{0, 2_440_588}, {86_399_999_999_999L, 2_440_587}, {-1, Integer.MAX_VALUE}, {Long.MIN_VALUE, Integer.MIN_VALUE}};
        long[] expected = new long[cases.length];
        for (int i = 0; i < cases.length; i++) {
            values.putLong(cases[i][0]).putInt((int) cases[i][1]);
            expected[i] = ((int) cases[i][1] - 2_440_588L) * 86_400_000_000L + cases[i][0] / 1000;
        }
        for (DecodeKernels kernels : KERNELS.all()) {
            long in = KernelTestBytes.upload(kernels, values.array());
            long out = kernels.allocate(8L * cases.length);
            kernels.int96ToMicros(in, cases.length, out);
            assertArrayEquals(KernelTestBytes.longs(expected), KernelTestBytes.download(kernels, out, 8 * cases.length), kernels.describe());
            kernels.free(in);
            kernels.free(out);
        }
    }
}
