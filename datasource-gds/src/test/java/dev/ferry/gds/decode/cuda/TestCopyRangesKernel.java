package dev.ferry.gds.decode.cuda;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code parquet_copy.cu} compiled for the host and its Java twin against the bytes Java's own array copies give:
 * random ranges of 0 to 100 KB between two source allocations and one target, at odd offsets and at offsets
 * that share their alignment (the kernel's 8-byte word path, with leading and trailing bytes of every length
 * 0..7), bytes between the targets left as they were; and ranges past an allocation refused by the emulation.
 */
class TestCopyRangesKernel
{
    @RegisterExtension
    static final KernelImplementations KERNELS = new KernelImplementations();

    @Test
    void randomRangesCopyTheBytesJavaCopies()
    {
        Random random = new Random(18);
        for (int round = 0; round < 4; round++) {
            byte[][] sources = {new byte[700_000], new byte[300_001]};
            random.nextBytes(sources[0]);
            random.nextBytes(sources[1]);
            byte[] before = new byte[2_000_000];
            random.nextBytes(before);
            // Targets laid out one after another with gaps, so they never overlap; sources may overlap each other.
            List<long[]> ranges = new ArrayList<>();
            int targetAt = random.nextInt(16);
            while (true) {
                int which = random.nextInt(2);
                int length = switch (random.nextInt(4)) {
                    case 0 -> random.nextInt(20);
                    case 1 -> random.nextInt(300);
                    default -> random.nextInt(100_001);
                };
                length = Math.min(length, sources[which].length);
                int sourceAt = random.nextInt(sources[which].length - length + 1);
                if (random.nextBoolean()) {
                    // Same offset modulo 8 at both ends: the word path.
                    sourceAt = Math.max(0, sourceAt - Math.floorMod(sourceAt - targetAt, 8));
                }
                if (targetAt + length > before.length) {
                    break;
                }
                ranges.add(new long[] {which, sourceAt, targetAt, length});
                targetAt += length + random.nextInt(40);
            }
            byte[] expected = before.clone();
            for (long[] range : ranges) {
                System.arraycopy(sources[(int) range[0]], (int) range[1], expected, (int) range[2], (int) range[3]);
            }
            for (DecodeKernels kernels : KERNELS.all()) {
                long[] sourceAddresses = {KernelTestBytes.upload(kernels, sources[0]), KernelTestBytes.upload(kernels, sources[1])};
                long target = KernelTestBytes.upload(kernels, before);
                long[] table = new long[3 * ranges.size()];
                for (int i = 0; i < ranges.size(); i++) {
                    long[] range = ranges.get(i);
                    table[3 * i] = sourceAddresses[(int) range[0]] + range[1];
                    table[3 * i + 1] = target + range[2];
                    table[3 * i + 2] = range[3];
                }
                long tableAddress = KernelTestBytes.upload(kernels, KernelTestBytes.longs(table));
                kernels.copyRanges(tableAddress, ranges.size());
                assertArrayEquals(expected, KernelTestBytes.download(kernels, target, before.length), kernels.describe() + " round " + round + ", " + ranges.size() + " ranges");
                assertArrayEquals(sources[0], KernelTestBytes.download(kernels, sourceAddresses[0], sources[0].length), "sources are not written");
                for (long address : new long[] {sourceAddresses[0], sourceAddresses[1], target, tableAddress}) {
                    kernels.free(address);
                }
            }
        }
    }

    @Test
    void everyHeadAndTailLengthOnTheWordPath()
    {
        byte[] source = new byte[256];
        for (int i = 0; i < source.length; i++) {
            source[i] = (byte) (i * 7 + 1);
        }
        for (DecodeKernels kernels : KERNELS.all()) {
            long from = KernelTestBytes.upload(kernels, source);
            for (int offset = 0; offset < 8; offset++) {
                for (int length = 0; length <= 40; length++) {
                    byte[] before = new byte[64];
                    long to = KernelTestBytes.upload(kernels, before);
                    long table = KernelTestBytes.upload(kernels, KernelTestBytes.longs(new long[] {from + 8 + offset, to + offset, length}));
                    kernels.copyRanges(table, 1);
                    byte[] expected = before.clone();
                    System.arraycopy(source, 8 + offset, expected, offset, length);
                    assertArrayEquals(expected, KernelTestBytes.download(kernels, to, before.length), kernels.describe() + " offset " + offset + " length " + length);
                    kernels.free(to);
                    kernels.free(table);
                }
            }
            kernels.free(from);
        }
    }

    @Test
    void theEmulationRefusesARangePastAnAllocation()
    {
        KernelEmulation kernels = new KernelEmulation();
        long source = KernelTestBytes.upload(kernels, new byte[100]);
        long target = KernelTestBytes.upload(kernels, new byte[100]);
        for (long[] range : new long[][] {{source + 1, target, 100}, {source, target + 1, 100}, {source - 1, target, 10}, {source + 95, target + 95, 6}}) {
            long table = KernelTestBytes.upload(kernels, KernelTestBytes.longs(range));
            IndexOutOfBoundsException error = assertThrows(IndexOutOfBoundsException.class, () -> kernels.copyRanges(table, 1),
                    "range " + java.util.Arrays.toString(range));
            assertTrue(error.getMessage().contains("outside every allocation"), error.getMessage());
            assertArrayEquals(new byte[100], KernelTestBytes.download(kernels, target, 100), "nothing of a refused range is written");
            kernels.free(table);
        }
        long negative = KernelTestBytes.upload(kernels, KernelTestBytes.longs(new long[] {source, target, -1}));
        assertThrows(IllegalArgumentException.class, () -> kernels.copyRanges(negative, 1), "a negative length, which the host never asks for");
        long table = KernelTestBytes.upload(kernels, KernelTestBytes.longs(new long[] {source, target, 10}));
        // Two ranges named, a table of one.
        assertThrows(IndexOutOfBoundsException.class, () -> kernels.copyRanges(table, 2));
    }
}
