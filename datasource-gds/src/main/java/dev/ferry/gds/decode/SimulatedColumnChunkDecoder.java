package dev.ferry.gds.decode;

import dev.ferry.gds.device.DeviceColumn;
import dev.ferry.gds.device.DeviceTarget;
import dev.ferry.gds.device.SimulatedDeviceArrow;
import dev.ferry.gds.io.CompressedPageCapture;
import dev.ferry.gds.decode.cuda.ChunkPages;
import dev.ferry.gds.decode.cuda.DevicePageHeaders;
import dev.ferry.gds.decode.cuda.HostPageDecompression;
import dev.ferry.gds.decode.cuda.KernelEmulation;
import dev.ferry.gds.decode.cuda.PageDescriptor;
import dev.ferry.gds.io.PageArrays;
import dev.ferry.gds.io.ResidentChunk;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import java.nio.ByteBuffer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.VersionParser;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.spark.sql.types.StructField;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The simulated backend's device decoder: the CPU decoder writing its Arrow buffers straight into
 * simulated device memory ({@link SimulatedDeviceArrow}), so a device batch's decoded bytes never
 * sit in host memory, as with the CUDA kernels. It takes the chunks the shared rule
 * ({@link DeviceDecodeSupport}) takes and refuses the others with the same reasons, so fallbacks
 * and counters run in CI as they would on a GPU. The page bodies of a chunk it decodes are copied
 * into device memory as stored (compressed where the codec seam kept them so) as they are read,
 * and decompressed there by the CPU standing in for nvCOMP ({@link UploadedPages}): the upload
 * the cuda decoder makes, so the simulation counts that crossing at its compressed size too. A
 * chunk a GDS read left in simulated device memory is decoded there, as the cuda decoder decodes a
 * resident chunk ({@link #startResident}): no upload, no copy back. Owns its allocator over the
 * target's memory, made on the first device batch and closed by {@link #release}.
 */
final class SimulatedColumnChunkDecoder
        implements ColumnChunkDecoder
{
    private final CpuColumnChunkDecoder cpu;
    private final DeviceTarget target;
    private final Optional<CompressedPageCapture> capture;
    private final String file;
    private SimulatedDeviceArrow deviceArrow;
    // The CPU codecs standing in for nvCOMP, made on the first compressed body and released with the decoder.
    private final HostCodecs codecs = new HostCodecs();

    /** {@code capture}: the reader's codec seam, so compressed bodies cross compressed (empty: they cross decompressed). */
    SimulatedColumnChunkDecoder(CpuColumnChunkDecoder cpu, DeviceTarget target, Optional<CompressedPageCapture> capture, String file)
    {
        this.cpu = requireNonNull(cpu, "cpu is null");
        this.target = requireNonNull(target, "target is null");
        this.capture = requireNonNull(capture, "capture is null");
        this.file = requireNonNull(file, "file is null");
    }

    @Override
    public StructField field()
    {
        return cpu.field();
    }

    @Override
    public DecodeSupport deviceSupport(Map<ColumnPath, Set<Encoding>> encodings)
    {
        return cpu.deviceSupport(encodings);
    }

    @Override
    public boolean canSkipRows(Map<ColumnPath, Set<Encoding>> encodings)
    {
        return cpu.canSkipRows(encodings);
    }

    @Override
    public void start(PageReadStore pages, VersionParser.ParsedVersion writerVersion, PageChecks checks, Map<ColumnPath, Set<Encoding>> encodings,
            long[] rangeFrom, long[] rangeTo, PageArrays pageArrays)
    {
        // A chunk decoded into device memory has its pages uploaded first, as on cuda: that crossing is counted here too.
        boolean deviceChunk = cpu.leaves().size() == 1 && cpu.deviceSupport(encodings).supported();
        cpu.start(deviceChunk ? new UploadedPages(pages, cpu.leaves().get(0).descriptor, target, capture, file, this::codecs) : pages, writerVersion, checks, encodings, rangeFrom, rangeTo,
                pageArrays);
    }

    @Override
    public Optional<ColumnPath> residentChunk(Map<ColumnPath, Set<Encoding>> encodings, Map<ColumnPath, CompressionCodecName> codecs)
    {
        // The chunks the cuda decoder takes in place, and only those, so the simulation counts the crossings a GPU would make.
        return CudaColumnChunkDecoder.residentPath(cpu, encodings, codecs, HostPageDecompression::cannotDecompress);
    }

    /**
     * A chunk the GDS read left in simulated device memory, decoded there as the cuda decoder
     * decodes it in GPU memory: its page headers walked by the emulation of {@code parquet_headers.cu}
     * over the chunk's own bytes, its bodies decompressed by the CPU standing in for nvCOMP and
     * decoded by the CPU decoder into simulated device memory; nothing crosses to the host. A chunk
     * whose pages the kernels would give back (the same rule, {@link ChunkPages#resident}) is copied
     * down once, counted, as on a GPU.
     */
    @Override
    public void startResident(ResidentChunk resident, CompressionCodecName codec, long valueCount, PageReadStore rowGroup, VersionParser.ParsedVersion writerVersion,
            PageChecks checks, Map<ColumnPath, Set<Encoding>> encodings, PageArrays pageArrays)
    {
        LeafNode leaf = cpu.leaves().get(0);
        ByteBuffer chunk = SimulatedDeviceArrow.view(resident.buffer());
        chunk.position(Math.toIntExact(resident.offset())).limit(Math.toIntExact(resident.offset() + resident.range().length()));
        chunk = chunk.slice();
        List<PageDescriptor> pages = walk(chunk, leaf.path, resident.range().position(), valueCount, checks.maxPageBytes());
        if (ChunkPages.resident(pages, codec, leaf.descriptor.getMaxDefinitionLevel()).refusal().isPresent()) {
            chunk = resident.copyToHost();
        }
        cpu.start(WalkedPagesOnHost.of(rowGroup, leaf.descriptor, chunk, pages, codec, valueCount, codecs(), file, leaf.path), writerVersion, checks, encodings, null,
                null, pageArrays);
    }

    // The emulated header walk over the chunk's bytes, in emulated device memory of its own (the simulated GPU's scratch).
    private List<PageDescriptor> walk(ByteBuffer chunk, String column, long fileOffset, long valueCount, long maxPageBytes)
    {
        KernelEmulation kernels = new KernelEmulation();
        byte[] bytes = new byte[chunk.remaining()];
        chunk.duplicate().get(bytes);
        long address = kernels.allocate(Math.max(1, bytes.length));
        try {
            kernels.upload(bytes, 0, bytes.length, address);
            return DevicePageHeaders.walk(kernels, file, List.of(new DevicePageHeaders.Chunk(column, fileOffset, address, bytes.length, valueCount)), maxPageBytes)
                    .get(0).pages();
        }
        finally {
            kernels.free(address);
        }
    }

    @Override
    public FieldVector decode(int rows, BufferAllocator allocator, String timeZone, String file)
    {
        return cpu.decode(rows, allocator, timeZone, file);
    }

    /** Decodes into vectors whose buffers are the target's simulated device memory; {@code staging} is not used. */
    @Override
    public DeviceColumn decodeToDevice(int rows, DeviceTarget target, BufferAllocator staging, String timeZone, String file)
    {
        SimulatedDeviceArrow arrow = deviceArrow(target);
        try (FieldVector vector = cpu.decode(rows, arrow.allocator(), timeZone, file)) {
            return arrow.column(vector, field().dataType(), target);
        }
    }

    @Override
    public boolean decodesIntoDeviceMemory()
    {
        return true;
    }

    private SimulatedDeviceArrow deviceArrow(DeviceTarget requested)
    {
        if (!target.equals(requested)) {
            throw new IllegalStateException("column " + field().name() + " decodes for " + target + ", not " + requested);
        }
        if (deviceArrow == null) {
            deviceArrow = new SimulatedDeviceArrow(target);
        }
        return deviceArrow;
    }

    @Override
    public boolean canDecodeSelected()
    {
        return cpu.canDecodeSelected();
    }

    @Override
    public FieldVector decodeSelected(int rows, int[] selected, int count, BufferAllocator allocator, String timeZone, String file)
    {
        return cpu.decodeSelected(rows, selected, count, allocator, timeZone, file);
    }

    @Override
    public void checkExhausted(String file, long rowGroupOffset)
    {
        cpu.checkExhausted(file, rowGroupOffset);
    }

    @Override
    public String position()
    {
        return cpu.position();
    }

    @Override
    public List<String> leafPaths()
    {
        return cpu.leafPaths();
    }

    private CompressionCodecFactory codecs()
    {
        return codecs.get();
    }

    @Override
    public void release()
    {
        cpu.release();
        codecs.release();
        if (deviceArrow != null) {
            deviceArrow.close();
            deviceArrow = null;
        }
    }
}
