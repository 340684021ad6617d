package dev.ferry.repartition;

import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceColumn;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;

import java.util.ArrayList;
import java.util.List;

/**
 * Packs the device batches one map task made for one output partition into a single device block
 * (device-to-device copies, each buffer 64-byte aligned, as Arrow aligns its buffers) so the device
 * store and every device route carry it as one block; and unpacks a fetched block back into
 * device batches that are slices of it (no copy). The layout says where each buffer lies.
 */
final class PiecePacking
{
    static final int ALIGNMENT = 64;

    private PiecePacking() {}

    /** A packed block, owned by the caller, and its layout. */
    record Packed(DeviceBuffer block, PieceLayout layout) {}

    /**
     * {@code batches} (all on {@code stream}'s device, non-empty) copied into one block of
     * {@code landing}'s pool; the batches stay the caller's. Complete (stream synchronized) on return.
     */
    static Packed pack(List<DeviceBatch> batches, DeviceLanding landing, DeviceStream stream)
    {
        if (batches.isEmpty()) {
            throw new IllegalArgumentException("nothing to pack");
        }
        long size = 0;
        List<PieceLayout.BatchLayout> layouts = new ArrayList<>(batches.size());
        for (DeviceBatch batch : batches) {
            List<PieceLayout.ColumnLayout> columns = new ArrayList<>();
            for (DeviceColumn column : batch.columns()) {
                long[] offsets = new long[column.lengths().size()];
                long[] lengths = new long[offsets.length];
                for (int i = 0; i < offsets.length; i++) {
                    offsets[i] = size;
                    lengths[i] = column.lengths().get(i);
                    size = align(size + lengths[i]);
                }
                columns.add(new PieceLayout.ColumnLayout(column.name(), column.type(), column.nullCount(), offsets, lengths));
            }
            layouts.add(new PieceLayout.BatchLayout(batch.rows(), columns));
        }
        PieceLayout layout = new PieceLayout(layouts, Math.max(size, ALIGNMENT));
        DeviceBuffer block = landing.allocate(layout.bytes());
        boolean success = false;
        try {
            for (int b = 0; b < batches.size(); b++) {
                List<DeviceColumn> columns = batches.get(b).columns();
                for (int c = 0; c < columns.size(); c++) {
                    PieceLayout.ColumnLayout where = layout.batches().get(b).columns().get(c);
                    for (int i = 0; i < where.lengths().length; i++) {
                        if (where.lengths()[i] > 0) {
                            stream.copy(columns.get(c).buffers().get(i), 0, block, where.offsets()[i], where.lengths()[i]);
                        }
                    }
                }
            }
            stream.synchronize();
            success = true;
            return new Packed(block, layout);
        }
        finally {
            if (!success) {
                block.close();
            }
        }
    }

    /**
     * The batches of {@code block} as {@code layout} describes them, each buffer a slice of the
     * block (holding its own reference: the caller may close {@code block} afterwards). Every range
     * is checked against the block before it is sliced; a layout that does not fit names the
     * column and the offending range.
     */
    static List<DeviceBatch> unpack(DeviceBuffer block, PieceLayout layout, int device, String what)
    {
        if (block.length() < layout.bytes()) {
            throw new IllegalArgumentException(what + " has " + block.length() + " bytes, its layout needs " + layout.bytes());
        }
        List<DeviceBatch> batches = new ArrayList<>(layout.batches().size());
        boolean success = false;
        try {
            for (PieceLayout.BatchLayout batch : layout.batches()) {
                List<DeviceColumn> columns = new ArrayList<>(batch.columns().size());
                List<DeviceBuffer> sliced = new ArrayList<>();
                try {
                    for (PieceLayout.ColumnLayout column : batch.columns()) {
                        List<DeviceBuffer> buffers = new ArrayList<>();
                        List<Long> lengths = new ArrayList<>();
                        for (int i = 0; i < column.offsets().length; i++) {
                            long offset = column.offsets()[i];
                            long length = column.lengths()[i];
                            // The slice keeps the padding up to the next aligned offset, where the producer's allocation had it too.
                            long span = Math.min(align(offset + length), block.length()) - offset;
                            if (offset < 0 || length < 0 || offset % ALIGNMENT != 0 || span < length) {
                                throw new IllegalArgumentException(what + ": buffer " + i + " of column " + column.name() + " at [" + offset + ", +" + length
                                        + ") does not lie in the block of " + block.length() + " bytes");
                            }
                            DeviceBuffer slice = block.slice(offset, span);
                            sliced.add(slice);
                            buffers.add(slice);
                            lengths.add(length);
                        }
                        columns.add(new DeviceColumn(column.name(), column.type(), column.nullCount(), buffers, lengths));
                    }
                }
                catch (RuntimeException e) {
                    sliced.forEach(DeviceBuffer::close);
                    throw e;
                }
                batches.add(new DeviceBatch(device, batch.rows(), columns));
            }
            success = true;
            return batches;
        }
        finally {
            if (!success) {
                batches.forEach(DeviceBatch::close);
            }
        }
    }

    static long align(long offset)
    {
        return (offset + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    }
}
