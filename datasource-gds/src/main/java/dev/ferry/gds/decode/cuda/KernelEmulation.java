package dev.ferry.gds.decode.cuda;

import java.util.Optional;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import dev.ferry.device.kernel.KernelErrorFlags;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The decode kernels run in Java with the same index math as their CUDA C sources, one call of a
 * kernel body per (block, thread) index, on emulated device memory: allocations get addresses in a
 * private address space, so pointer arithmetic ({@code base + offset}) is the same as on the device,
 * and a read or write outside an allocation fails as a GPU fault would (an index exception names it).
 * It cannot see races; each kernel writes disjoint bytes per thread by design, except the error
 * word, which the kernels OR into atomically. Used by tests against the CPU decoder and, on a GPU,
 * as the expected side of the kernel check.
 */
public class KernelEmulation
        implements DecodeKernels
{
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long FIRST_ADDRESS = 0x7000_0000_0000L;

    private final TreeMap<Long, byte[]> allocations = new TreeMap<>();
    private long next = FIRST_ADDRESS;

    /** Bytes of emulated device memory still allocated (a test's leak check). */
    public long allocatedBytes()
    {
        long total = 0;
        for (byte[] bytes : allocations.values()) {
            total += bytes.length;
        }
        return total;
    }

    /** The size of the allocation that starts at {@code address}. */
    public long sizeOf(long address)
    {
        byte[] memory = allocations.get(address);
        if (memory == null) {
            throw new IllegalArgumentException("0x" + Long.toHexString(address) + " is not an allocation");
        }
        return memory.length;
    }

    @Override
    public long allocate(long bytes)
    {
        if (bytes <= 0 || bytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("emulated allocation of " + bytes + " bytes");
        }
        long address = next;
        byte[] memory = new byte[(int) bytes];
        // Device memory is not zeroed: fill with a pattern so a kernel that leaves bytes unwritten shows up.
        Arrays.fill(memory, (byte) 0xA5);
        allocations.put(address, memory);
        // 256-byte aligned, as cuMemAlloc, with a gap so an overrun never lands in the next allocation.
        next += (bytes + 511) & ~255L;
        return address;
    }

    @Override
    public void free(long address)
    {
        if (allocations.remove(address) == null) {
            throw new IllegalArgumentException("free of 0x" + Long.toHexString(address) + ", which is not an allocation");
        }
    }

    @Override
    public void upload(byte[] source, int offset, int length, long target)
    {
        Region region = region(target, length);
        System.arraycopy(source, offset, region.bytes, region.offset, length);
    }

    @Override
    public void download(long source, byte[] target, int offset, int length)
    {
        Region region = region(source, length);
        System.arraycopy(region.bytes, region.offset, target, offset, length);
    }

    @Override
    public void copy(long source, long target, long length)
    {
        if (length == 0) {
            return;
        }
        Region from = region(source, length);
        Region to = region(target, length);
        System.arraycopy(from.bytes, from.offset, to.bytes, to.offset, (int) length);
    }

    @Override
    public Optional<String> cannotDecompress(CompressionCodecName codec)
    {
        return HostPageDecompression.cannotDecompress(codec);
    }

    /**
     * nvCOMP's part, done by the CPU from emulated device memory into emulated device memory; a
     * buffer off nvCOMP's 16-byte alignment fails as it would on the GPU.
     */
    @Override
    public String[] decompress(CompressionCodecName codec, long[] in, long[] inBytes, long[] out, long[] outBytes)
    {
        for (int i = 0; i < in.length; i++) {
            if (in[i] % ChunkPages.COMPRESSED_ALIGNMENT != 0 || out[i] % ChunkPages.COMPRESSED_ALIGNMENT != 0) {
                throw new IllegalArgumentException("page body " + i + " at 0x" + Long.toHexString(in[i]) + " -> 0x" + Long.toHexString(out[i])
                        + " is not aligned to the " + ChunkPages.COMPRESSED_ALIGNMENT + " bytes nvCOMP requires");
            }
        }
        return HostPageDecompression.decompress(this, codec, in, inBytes, out, outBytes);
    }

    @Override
    public String describe()
    {
        return "the Java emulation of the decode kernels";
    }

    // ---- parquet_rle.cu

    @Override
    public void rleRuns(long data, long byteCount, int bitWidth, int valueCount, int maxRuns, long runStarts, long runLengths, long runKinds, long runOffsets,
            long runCount, long errors)
    {
        long position = 0;
        int value = 0;
        int runs = 0;
        long rleBytes = (bitWidth + 7) / 8;
        while (value < valueCount) {
            long header = 0;
            int shift = 0;
            boolean done = false;
            while (!done) {
                if (position >= byteCount || shift > 28) {
                    or(errors, KernelErrorFlags.OVERRUN);
                    putInt(runCount, 0, runs);
                    return;
                }
                int next = u8(data, position++);
                header |= (long) (next & 0x7F) << shift;
                shift += 7;
                done = (next & 0x80) == 0;
            }
            long count;
            long payload;
            int kind;
            if ((header & 1) != 0) {
                count = (header >>> 1) * 8;
                kind = 1;
                long used = Math.min(count, valueCount - value);
                long needed = (used * bitWidth + 7) / 8;
                if (position + needed > byteCount) {
                    or(errors, KernelErrorFlags.OVERRUN);
                    putInt(runCount, 0, runs);
                    return;
                }
                payload = (header >>> 1) * bitWidth;
            }
            else {
                count = header >>> 1;
                kind = 0;
                payload = rleBytes;
                if (position + payload > byteCount) {
                    or(errors, KernelErrorFlags.OVERRUN);
                    putInt(runCount, 0, runs);
                    return;
                }
            }
            if (count > 0) {
                if (runs >= maxRuns) {
                    or(errors, KernelErrorFlags.RUN_TABLE);
                    putInt(runCount, 0, runs);
                    return;
                }
                int length = (int) Math.min(count, valueCount - value);
                putInt(runStarts, runs, value);
                putInt(runLengths, runs, length);
                putInt(runKinds, runs, kind);
                putLong(runOffsets, runs, position);
                runs++;
                value += length;
            }
            position += payload;
        }
        putInt(runCount, 0, runs);
    }

    private int readBits(long data, long byteCount, long bitOffset, int bitWidth, long errors)
    {
        if (bitWidth == 0) {
            return 0;
        }
        long first = bitOffset >> 3;
        int shift = (int) (bitOffset & 7);
        int bytes = (shift + bitWidth + 7) / 8;
        long bits = 0;
        for (int i = 0; i < bytes; i++) {
            if (first + i >= byteCount) {
                or(errors, KernelErrorFlags.OVERRUN);
                return 0;
            }
            bits |= (long) u8(data, first + i) << (8 * i);
        }
        long mask = bitWidth == 32 ? 0xFFFFFFFFL : (1L << bitWidth) - 1;
        return (int) ((bits >>> shift) & mask);
    }

    @Override
    public void rleExpand(long data, long byteCount, int bitWidth, long runStarts, long runLengths, long runKinds, long runOffsets, long runCount, int valueCount,
            long maxValue, long out, long errors)
    {
        int runs = getInt(runCount, 0);
        for (long index = 0; index < valueCount; index++) {
            if (runs <= 0) {
                putInt(out, index, 0);
                continue;
            }
            int low = 0;
            int high = runs - 1;
            while (low < high) {
                int middle = low + (high - low + 1) / 2;
                if (getInt(runStarts, middle) <= index) {
                    low = middle;
                }
                else {
                    high = middle - 1;
                }
            }
            long within = index - getInt(runStarts, low);
            if (within < 0 || within >= getInt(runLengths, low)) {
                or(errors, KernelErrorFlags.SHORT);
                putInt(out, index, 0);
                continue;
            }
            int value;
            if (getInt(runKinds, low) == 0) {
                value = readBits(data, byteCount, getLong(runOffsets, low) * 8, (bitWidth + 7) / 8 * 8, errors);
            }
            else {
                value = readBits(data, byteCount, getLong(runOffsets, low) * 8 + within * bitWidth, bitWidth, errors);
            }
            if (Integer.toUnsignedLong(value) > maxValue) {
                or(errors, KernelErrorFlags.VALUE_RANGE);
                value = 0;
            }
            putInt(out, index, value);
        }
    }

    @Override
    public void levelsBitmap(long levels, int valueCount, int maxDefinition, long bitmap)
    {
        long byteCount = ((long) valueCount + 7) / 8;
        for (long byteIndex = 0; byteIndex < byteCount; byteIndex++) {
            int bits = 0;
            for (int bit = 0; bit < 8; bit++) {
                long value = byteIndex * 8 + bit;
                if (value < valueCount && getInt(levels, value) == maxDefinition) {
                    bits |= 1 << bit;
                }
            }
            putByte(bitmap, byteIndex, bits);
        }
    }

    // ---- parquet_scan.cu

    private long counted(long values, long index, int flagsOnly, int match)
    {
        int value = getInt(values, index);
        return flagsOnly != 0 ? (value == match ? 1 : 0) : Integer.toUnsignedLong(value);
    }

    @Override
    public void scanChunkSums(long values, int valueCount, int chunk, int flagsOnly, int match, long sums)
    {
        long chunkCount = ((long) valueCount + chunk - 1) / chunk;
        for (long c = 0; c < chunkCount; c++) {
            long first = c * chunk;
            long last = Math.min(first + chunk, valueCount);
            long sum = 0;
            for (long i = first; i < last; i++) {
                sum += counted(values, i, flagsOnly, match);
            }
            putLong(sums, c, sum);
        }
    }

    @Override
    public void scanChunkStarts(long sums, int chunkCount)
    {
        long running = 0;
        for (int c = 0; c < chunkCount; c++) {
            long next = running + getLong(sums, c);
            putLong(sums, c, running);
            running = next;
        }
        putLong(sums, chunkCount, running);
    }

    @Override
    public void scanWrite(long values, int valueCount, int chunk, int flagsOnly, int match, long starts, long out, long errors)
    {
        long chunkCount = ((long) valueCount + chunk - 1) / chunk;
        for (long c = 0; c < chunkCount; c++) {
            long first = c * chunk;
            long last = Math.min(first + chunk, valueCount);
            long running = getLong(starts, c);
            for (long i = first; i <= last; i++) {
                if (i == last && last != valueCount) {
                    break;
                }
                if (Long.compareUnsigned(running, Integer.MAX_VALUE) > 0) {
                    or(errors, KernelErrorFlags.OFFSET_OVERFLOW);
                    putInt(out, i, 0);
                }
                else {
                    putInt(out, i, (int) running);
                }
                if (i < last) {
                    running += counted(values, i, flagsOnly, match);
                }
            }
        }
    }

    // ---- parquet_gather.cu

    private boolean valid(long bitmap, long index)
    {
        return bitmap == 0 || ((u8(bitmap, index >> 3) >> (index & 7)) & 1) != 0;
    }

    private long slot(long positions, long index)
    {
        return positions == 0 ? index : getInt(positions, index);
    }

    @Override
    public void dictGatherFixed(long dictionary, int dictionarySize, int width, long indices, long bitmap, long positions, int valueCount, long out, long errors)
    {
        for (long index = 0; index < valueCount; index++) {
            long target = out + index * width;
            long source = 0;
            if (valid(bitmap, index)) {
                int id = getInt(indices, slot(positions, index));
                if (Integer.compareUnsigned(id, dictionarySize) < 0) {
                    source = dictionary + (long) id * width;
                }
                else {
                    or(errors, KernelErrorFlags.VALUE_RANGE);
                }
            }
            for (int b = 0; b < width; b++) {
                putByte(target, b, source == 0 ? 0 : u8(source, b));
            }
        }
    }

    @Override
    public void spacedFixed(long dense, long denseCount, int width, long bitmap, long positions, int valueCount, long out, long errors)
    {
        for (long index = 0; index < valueCount; index++) {
            long target = out + index * width;
            long source = 0;
            if (valid(bitmap, index)) {
                long slot = slot(positions, index);
                if (slot < denseCount) {
                    source = dense + slot * width;
                }
                else {
                    or(errors, KernelErrorFlags.OVERRUN);
                }
            }
            for (int b = 0; b < width; b++) {
                putByte(target, b, source == 0 ? 0 : u8(source, b));
            }
        }
    }

    @Override
    public void spacedBooleans(long dense, long denseCount, long slotBase, long bitmap, long positions, int valueCount, long out, long errors)
    {
        long byteCount = ((long) valueCount + 7) / 8;
        for (long byteIndex = 0; byteIndex < byteCount; byteIndex++) {
            int bits = 0;
            for (int bit = 0; bit < 8; bit++) {
                long index = byteIndex * 8 + bit;
                if (index >= valueCount || !valid(bitmap, index)) {
                    continue;
                }
                long slot = slotBase + slot(positions, index);
                if (slot >= denseCount) {
                    or(errors, KernelErrorFlags.OVERRUN);
                    continue;
                }
                if (((u8(dense, slot >> 3) >> (slot & 7)) & 1) != 0) {
                    bits |= 1 << bit;
                }
            }
            putByte(out, byteIndex, bits);
        }
    }

    @Override
    public void copyBits(long source, long bitCount, long target, long targetBitOffset)
    {
        if (bitCount <= 0) {
            return;
        }
        for (long byteIndex = targetBitOffset >> 3; byteIndex <= (targetBitOffset + bitCount - 1) >> 3; byteIndex++) {
            int value = u8(target, byteIndex);
            for (int bit = 0; bit < 8; bit++) {
                long from = byteIndex * 8 + bit - targetBitOffset;
                if (from < 0 || from >= bitCount) {
                    continue;
                }
                int set = (u8(source, from >> 3) >> (from & 7)) & 1;
                value = (value & ~(1 << bit)) | (set << bit);
            }
            putByte(target, byteIndex, value);
        }
    }

    @Override
    public void stringLengths(int dictionary, long entryLengths, int entryCount, long indices, long bitmap, long positions, int valueCount, long lengths, long errors)
    {
        for (long index = 0; index < valueCount; index++) {
            int length = 0;
            if (valid(bitmap, index)) {
                long slot = slot(positions, index);
                long entry = dictionary != 0 ? Integer.toUnsignedLong(getInt(indices, slot)) : slot;
                if (entry < entryCount) {
                    length = getInt(entryLengths, entry);
                }
                else {
                    or(errors, dictionary != 0 ? KernelErrorFlags.VALUE_RANGE : KernelErrorFlags.OVERRUN);
                }
            }
            putInt(lengths, index, length);
        }
    }

    @Override
    public void stringGather(int dictionary, long entryBytes, long entryStarts, long entryLengths, int entryCount, long indices, long bitmap, long positions,
            int valueCount, long offsets, long data)
    {
        for (long index = 0; index < valueCount; index++) {
            if (!valid(bitmap, index)) {
                continue;
            }
            long slot = slot(positions, index);
            long entry = dictionary != 0 ? Integer.toUnsignedLong(getInt(indices, slot)) : slot;
            if (entry >= entryCount) {
                continue;
            }
            int start = getInt(offsets, index);
            long length = getInt(offsets, index + 1) - start;
            // Bulk copy with the same bounds as the kernel's byte loop.
            copy(entryBytes + getLong(entryStarts, entry), data + start, length);
        }
    }

    // ---- parquet_plain.cu

    @Override
    public void plainByteArrayIndex(long data, long byteCount, int entryCount, long startBase, long entryStarts, long entryLengths, long errors)
    {
        long position = 0;
        boolean bad = false;
        for (int entry = 0; entry < entryCount; entry++) {
            long length = 0;
            if (!bad) {
                if (position + 4 > byteCount) {
                    bad = true;
                }
                else {
                    length = Integer.toUnsignedLong(getIntAt(data + position));
                    if (length > byteCount - position - 4) {
                        bad = true;
                        length = 0;
                    }
                }
                if (bad) {
                    or(errors, KernelErrorFlags.OVERRUN);
                }
            }
            putLong(entryStarts, entry, bad ? startBase : startBase + position + 4);
            putInt(entryLengths, entry, (int) length);
            if (!bad) {
                position += 4 + length;
            }
        }
    }

    @Override
    public void int96ToMicros(long in, int count, long out)
    {
        for (long index = 0; index < count; index++) {
            long value = in + index * 12;
            long nanosOfDay = getLongAt(value);
            long julianDay = getIntAt(value + 8);
            putLong(out, index, (julianDay - 2_440_588L) * 86_400_000_000L + nanosOfDay / 1000);
        }
    }

    @Override
    public void decimalTo128(long in, int count, int inWidth, int bigEndian, long out, long errors)
    {
        for (long index = 0; index < count; index++) {
            long target = out + index * 16;
            if (inWidth < 1 || inWidth > 16) {
                or(errors, KernelErrorFlags.VALUE_RANGE);
                for (int b = 0; b < 16; b++) {
                    putByte(target, b, 0);
                }
                continue;
            }
            long value = in + index * inWidth;
            int top = bigEndian != 0 ? u8(value, 0) : u8(value, inWidth - 1);
            int fill = (top & 0x80) != 0 ? 0xFF : 0;
            for (int b = 0; b < 16; b++) {
                if (b < inWidth) {
                    putByte(target, b, bigEndian != 0 ? u8(value, inWidth - 1 - b) : u8(value, b));
                }
                else {
                    putByte(target, b, fill);
                }
            }
        }
    }

    @Override
    public void int32Narrow(long in, int count, int outWidth, long out)
    {
        for (long index = 0; index < count; index++) {
            int value = getInt(in, index);
            for (int b = 0; b < outWidth; b++) {
                putByte(out + index * outWidth, b, (value >>> (8 * b)) & 0xFF);
            }
        }
    }

    @Override
    public void timestampToMicros(long in, int count, int multiply, int divide, long out, long errors)
    {
        for (long index = 0; index < count; index++) {
            long value = getLong(in, index);
            if (multiply > 1) {
                long limit = Long.MAX_VALUE / multiply;
                if (value > limit || value < -limit) {
                    or(errors, KernelErrorFlags.VALUE_RANGE);
                    value = 0;
                }
                else {
                    value *= multiply;
                }
            }
            if (divide > 1) {
                long quotient = value / divide;
                if (value % divide != 0 && value < 0) {
                    quotient--;
                }
                value = quotient;
            }
            putLong(out, index, value);
        }
    }

    // ---- parquet_headers.cu

    /** The kernel's FerryHeadersCursor: the chunk being walked, and its first error. */
    private static final class HeaderCursor
    {
        long data;
        long length;
        long position;
        int error;
        long errorAt = -1;
    }

    private static void headerFail(HeaderCursor c, int code, long at)
    {
        if (c.error == 0) {
            c.error = code;
            c.errorAt = at;
        }
    }

    private int headerByte(HeaderCursor c)
    {
        if (c.error != 0) {
            return 0;
        }
        if (c.position >= c.length) {
            headerFail(c, PageHeaderSlots.TRUNCATED, c.position);
            return 0;
        }
        int value = u8(c.data, c.position);
        c.position++;
        return value;
    }

    private static void headerAdvance(HeaderCursor c, long bytes)
    {
        if (c.error != 0) {
            return;
        }
        if (Long.compareUnsigned(bytes, c.length - c.position) > 0) {
            headerFail(c, PageHeaderSlots.TRUNCATED, c.position);
            return;
        }
        c.position += bytes;
    }

    private long headerVarint(HeaderCursor c)
    {
        if (c.error != 0) {
            return 0;
        }
        long start = c.position;
        long value = 0;
        for (int i = 0; i < 10; i++) {
            if (c.position >= c.length) {
                headerFail(c, PageHeaderSlots.TRUNCATED, start);
                return 0;
            }
            int next = u8(c.data, c.position);
            c.position++;
            if (i == 9 && next > 1) {
                break;
            }
            value |= (long) (next & 0x7F) << (7 * i);
            if ((next & 0x80) == 0) {
                return value;
            }
        }
        headerFail(c, PageHeaderSlots.LONG_VARINT, start);
        return 0;
    }

    private long headerInt(HeaderCursor c, long low, long high)
    {
        long start = c.position;
        long raw = headerVarint(c);
        if (c.error != 0) {
            return 0;
        }
        long value = (raw >>> 1) ^ -(raw & 1);
        if (value < low || value > high) {
            headerFail(c, PageHeaderSlots.INT_RANGE, start);
            return 0;
        }
        return value;
    }

    private long headerI32(HeaderCursor c)
    {
        return headerInt(c, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    private long headerCount(HeaderCursor c)
    {
        long start = c.position;
        long value = headerI32(c);
        if (c.error == 0 && value < 0) {
            headerFail(c, PageHeaderSlots.NEGATIVE, start);
            return 0;
        }
        return value;
    }

    // Returns the field's compact type (0 at the end or on an error); lastId[0] becomes its id.
    private int headerField(HeaderCursor c, long[] lastId)
    {
        int header = headerByte(c);
        if (c.error != 0) {
            return 0;
        }
        int type = header & 0x0F;
        if (type == 0) {
            return 0;
        }
        int delta = header >> 4;
        if (delta == 0) {
            lastId[0] = headerInt(c, Short.MIN_VALUE, Short.MAX_VALUE);
        }
        else {
            lastId[0] += delta;
        }
        return c.error != 0 ? 0 : type;
    }

    private static boolean knownCompactType(int type)
    {
        return type >= 1 && type <= 12;
    }

    private void headerSkip(HeaderCursor c, int type)
    {
        int[] kinds = new int[PageHeaderSlots.MAX_DEPTH];
        int[] keyTypes = new int[PageHeaderSlots.MAX_DEPTH];
        int[] valueTypes = new int[PageHeaderSlots.MAX_DEPTH];
        long[] left = new long[PageHeaderSlots.MAX_DEPTH];
        int depth = 0;
        int pending = type;
        boolean inField = true;
        while (c.error == 0) {
            long start = c.position;
            if (pending == 1 || pending == 2) {
                if (!inField) {
                    headerByte(c);
                }
            }
            else if (pending == 3) {
                headerByte(c);
            }
            else if (pending >= 4 && pending <= 6) {
                headerVarint(c);
            }
            else if (pending == 7) {
                headerAdvance(c, 8);
            }
            else if (pending == 8) {
                long length = headerVarint(c);
                headerAdvance(c, length);
            }
            else if (pending >= 9 && pending <= 12) {
                if (depth == PageHeaderSlots.MAX_DEPTH) {
                    headerFail(c, PageHeaderSlots.TOO_DEEP, start);
                    return;
                }
                long elements = 0;
                int keyType = 0;
                int valueType = 0;
                if (pending == 11) {
                    long entries = headerVarint(c);
                    if (entries != 0) {
                        int types = headerByte(c);
                        keyType = types >> 4;
                        valueType = types & 0x0F;
                        if (c.error == 0 && (!knownCompactType(keyType) || !knownCompactType(valueType))) {
                            headerFail(c, PageHeaderSlots.COMPACT_TYPE, start);
                        }
                        if (c.error == 0 && Long.compareUnsigned(entries, (c.length - c.position) / 2) > 0) {
                            headerFail(c, PageHeaderSlots.TRUNCATED, start);
                        }
                        elements = 2 * entries;
                    }
                }
                else if (pending != 12) {
                    int header = headerByte(c);
                    elements = header >> 4;
                    keyType = header & 0x0F;
                    valueType = keyType;
                    if (elements == 15) {
                        elements = headerVarint(c);
                    }
                    if (c.error == 0 && !knownCompactType(keyType)) {
                        headerFail(c, PageHeaderSlots.COMPACT_TYPE, start);
                    }
                    if (c.error == 0 && Long.compareUnsigned(elements, c.length - c.position) > 0) {
                        headerFail(c, PageHeaderSlots.TRUNCATED, start);
                    }
                }
                if (c.error != 0) {
                    return;
                }
                kinds[depth] = pending;
                keyTypes[depth] = keyType;
                valueTypes[depth] = valueType;
                left[depth] = elements;
                depth++;
            }
            else {
                headerFail(c, PageHeaderSlots.COMPACT_TYPE, start);
                return;
            }
            pending = 0;
            while (depth > 0 && c.error == 0 && pending == 0) {
                int top = depth - 1;
                if (kinds[top] == 12) {
                    pending = headerField(c, new long[1]);
                    inField = true;
                    if (pending == 0) {
                        depth--;
                    }
                }
                else if (left[top] == 0) {
                    depth--;
                }
                else {
                    pending = kinds[top] == 11 && left[top] % 2 == 0 ? keyTypes[top] : valueTypes[top];
                    left[top]--;
                    inField = false;
                }
            }
            if (pending == 0) {
                return;
            }
        }
    }

    private void headerNested(HeaderCursor c, int intCount, int countMask, int boolId, long[] out)
    {
        long[] id = new long[1];
        int seen = 0;
        int type;
        while ((type = headerField(c, id)) != 0) {
            if (id[0] >= 1 && id[0] <= intCount && type == 5) {
                int bit = (int) id[0] - 1;
                out[bit] = ((countMask >> bit) & 1) != 0 ? headerCount(c) : headerI32(c);
                seen |= 1 << bit;
            }
            else if (boolId > 0 && id[0] == boolId && (type == 1 || type == 2)) {
                out[boolId - 1] = type == 1 ? 1 : 0;
            }
            else {
                headerSkip(c, type);
            }
        }
        if (c.error == 0 && seen != (1 << intCount) - 1) {
            headerFail(c, PageHeaderSlots.MISSING_FIELD, c.position - 1);
        }
    }

    private void headerPage(HeaderCursor c, long[] d)
    {
        long[] v1 = new long[4];
        long[] dictionary = new long[3];
        long[] v2 = new long[7];
        Arrays.fill(d, -1);
        Arrays.fill(v1, -1);
        Arrays.fill(dictionary, -1);
        Arrays.fill(v2, -1);
        int structs = 0;
        d[PageHeaderSlots.HEADER_OFFSET] = c.position;
        d[PageHeaderSlots.IS_COMPRESSED] = 1;
        d[PageHeaderSlots.HAS_CRC] = 0;
        v2[6] = 1;
        long typeAt = -1;
        int seen = 0;
        long[] id = new long[1];
        int type;
        while ((type = headerField(c, id)) != 0) {
            if (id[0] >= 1 && id[0] <= 4 && type == 5) {
                if (id[0] == 1) {
                    typeAt = c.position;
                    d[PageHeaderSlots.TYPE] = headerI32(c);
                    seen |= 1;
                }
                else if (id[0] == 2) {
                    d[PageHeaderSlots.UNCOMPRESSED_SIZE] = headerCount(c);
                    seen |= 2;
                }
                else if (id[0] == 3) {
                    d[PageHeaderSlots.COMPRESSED_SIZE] = headerCount(c);
                    seen |= 4;
                }
                else {
                    d[PageHeaderSlots.CRC] = headerI32(c);
                    d[PageHeaderSlots.HAS_CRC] = 1;
                }
            }
            else if (id[0] == 5 && type == 12) {
                headerNested(c, 4, 1, 0, v1);
                structs |= 1;
            }
            else if (id[0] == 7 && type == 12) {
                headerNested(c, 2, 1, 3, dictionary);
                structs |= 2;
            }
            else if (id[0] == 8 && type == 12) {
                headerNested(c, 6, 0x37, 7, v2);
                structs |= 4;
            }
            else {
                headerSkip(c, type);
            }
        }
        if (c.error != 0) {
            return;
        }
        long end = c.position - 1;
        if (seen != 7) {
            headerFail(c, PageHeaderSlots.MISSING_FIELD, end);
            return;
        }
        long pageType = d[PageHeaderSlots.TYPE];
        if (pageType == PageHeaderSlots.DATA_PAGE) {
            if ((structs & 1) == 0) {
                headerFail(c, PageHeaderSlots.MISSING_FIELD, end);
                return;
            }
            d[PageHeaderSlots.VALUE_COUNT] = v1[0];
            d[PageHeaderSlots.ENCODING] = v1[1];
            d[PageHeaderSlots.DEFINITION_ENCODING] = v1[2];
            d[PageHeaderSlots.REPETITION_ENCODING] = v1[3];
        }
        else if (pageType == PageHeaderSlots.DICTIONARY_PAGE) {
            if ((structs & 2) == 0) {
                headerFail(c, PageHeaderSlots.MISSING_FIELD, end);
                return;
            }
            d[PageHeaderSlots.VALUE_COUNT] = dictionary[0];
            d[PageHeaderSlots.ENCODING] = dictionary[1];
        }
        else if (pageType == PageHeaderSlots.DATA_PAGE_V2) {
            if ((structs & 4) == 0) {
                headerFail(c, PageHeaderSlots.MISSING_FIELD, end);
                return;
            }
            d[PageHeaderSlots.VALUE_COUNT] = v2[0];
            d[PageHeaderSlots.NULL_COUNT] = v2[1];
            d[PageHeaderSlots.ROW_COUNT] = v2[2];
            d[PageHeaderSlots.ENCODING] = v2[3];
            d[PageHeaderSlots.DEFINITION_LENGTH] = v2[4];
            d[PageHeaderSlots.REPETITION_LENGTH] = v2[5];
            d[PageHeaderSlots.IS_COMPRESSED] = v2[6];
        }
        else if (pageType != PageHeaderSlots.INDEX_PAGE) {
            headerFail(c, PageHeaderSlots.PAGE_TYPE, typeAt);
            return;
        }
        d[PageHeaderSlots.BODY_OFFSET] = c.position;
        if (d[PageHeaderSlots.COMPRESSED_SIZE] > c.length - c.position) {
            headerFail(c, PageHeaderSlots.BODY_PAST_END, c.position);
            return;
        }
        c.position += d[PageHeaderSlots.COMPRESSED_SIZE];
    }

    @Override
    public void pageHeaders(long chunks, int chunkCount, long descriptors, long status)
    {
        for (long index = 0; index < chunkCount; index++) {
            long chunk = chunks + index * PageHeaderSlots.CHUNK_FIELDS * 8;
            HeaderCursor c = new HeaderCursor();
            c.data = getLong(chunk, 0);
            c.length = getLong(chunk, 1);
            long firstSlot = getLong(chunk, 2);
            long slots = getLong(chunk, 3);
            long pages = 0;
            long headerAt = -1;
            long[] d = new long[PageHeaderSlots.SLOT_FIELDS];
            while (c.error == 0 && c.position < c.length) {
                headerAt = c.position;
                headerPage(c, d);
                if (c.error != 0 || d[PageHeaderSlots.TYPE] == PageHeaderSlots.INDEX_PAGE) {
                    continue;
                }
                if (pages < slots) {
                    long slot = descriptors + (firstSlot + pages) * PageHeaderSlots.SLOT_BYTES;
                    for (int i = 0; i < PageHeaderSlots.SLOT_FIELDS; i++) {
                        putLong(slot, i, d[i]);
                    }
                }
                pages++;
            }
            long out = status + index * PageHeaderSlots.STATUS_FIELDS * 8;
            putLong(out, 0, pages);
            putLong(out, 1, c.error);
            putLong(out, 2, c.error != 0 ? headerAt : -1);
            putLong(out, 3, c.error != 0 ? c.errorAt : -1);
        }
    }

    // ---- parquet_copy.cu

    @Override
    public void copyRanges(long ranges, int count)
    {
        for (long range = 0; range < count; range++) {
            long source = getLong(ranges, 3 * range);
            long target = getLong(ranges, 3 * range + 1);
            long length = getLong(ranges, 3 * range + 2);
            if (length < 0) {
                // The kernel copies nothing for it; the host never asks (DeviceRangeCopy refuses it), so here it is a fault.
                throw new IllegalArgumentException("range " + range + " of the copy table at 0x" + Long.toHexString(ranges) + " has length " + length);
            }
            if (length == 0) {
                continue;
            }
            // Both ends whole inside one allocation, or the range faults before any byte of it moves.
            Region from = region(source, length);
            Region to = region(target, length);
            // The kernel's split into leading bytes, aligned 8-byte words and trailing bytes moves the same bytes.
            System.arraycopy(from.bytes, from.offset, to.bytes, to.offset, (int) length);
        }
    }

    // ---- emulated memory

    private record Region(byte[] bytes, int offset) {}

    private Region region(long address, long length)
    {
        Map.Entry<Long, byte[]> entry = allocations.floorEntry(address);
        if (entry == null || address - entry.getKey() + length > entry.getValue().length || length < 0) {
            throw new IndexOutOfBoundsException("emulated device access of " + length + " bytes at 0x" + Long.toHexString(address) + " is outside every allocation");
        }
        return new Region(entry.getValue(), (int) (address - entry.getKey()));
    }

    private int u8(long address, long index)
    {
        Region region = region(address + index, 1);
        return region.bytes[region.offset] & 0xFF;
    }

    private void putByte(long address, long index, int value)
    {
        Region region = region(address + index, 1);
        region.bytes[region.offset] = (byte) value;
    }

    private int getInt(long address, long index)
    {
        return getIntAt(address + index * 4);
    }

    private int getIntAt(long address)
    {
        Region region = region(address, 4);
        return (int) INTS.get(region.bytes, region.offset);
    }

    private void putInt(long address, long index, int value)
    {
        Region region = region(address + index * 4, 4);
        INTS.set(region.bytes, region.offset, value);
    }

    private long getLong(long address, long index)
    {
        return getLongAt(address + index * 8);
    }

    private long getLongAt(long address)
    {
        Region region = region(address, 8);
        return (long) LONGS.get(region.bytes, region.offset);
    }

    private void putLong(long address, long index, long value)
    {
        Region region = region(address + index * 8, 8);
        LONGS.set(region.bytes, region.offset, value);
    }

    private void or(long errors, int flag)
    {
        putInt(errors, 0, getInt(errors, 0) | flag);
    }
}
