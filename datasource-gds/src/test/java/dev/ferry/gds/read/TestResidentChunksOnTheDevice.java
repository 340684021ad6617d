package dev.ferry.gds.read;

import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.ParquetSurgery;
import dev.ferry.gds.TestingSpark;
import dev.ferry.gds.decode.DevicePageCounts;
import dev.ferry.gds.decode.cuda.CopyRangeTable;
import dev.ferry.gds.decode.cuda.EmulatedDeviceKernels;
import dev.ferry.gds.decode.cuda.KernelEmulation;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceTarget;
import dev.ferry.gds.io.GdsParquetDataSource;
import dev.ferry.gds.io.ParquetDataSource;
import dev.ferry.gds.io.ReadCounters;
import dev.ferry.gds.io.ReadPlanning;
import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

import static dev.ferry.gds.read.WrittenPerVersionAndCodec.footer;
import static dev.ferry.gds.read.WrittenPerVersionAndCodec.parquetFile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 18's acceptance on the simulated backend: a GDS read into device memory followed by device
 * decode hands a consumer batches with 0 bytes of row data in host memory. The device side reads
 * through the GDS route ({@link GdsParquetDataSource} over simulated device memory), each flat
 * chunk the kernels take stays where the read put it, its page headers are walked on the device
 * (the emulated {@code parquet_headers.cu}), its compressed bodies decompressed there (where the read put
 * them when nvCOMP's alignment allows, else from a staging copy, both counted) and decoded by the emulated kernels: nothing is uploaded, nothing planned comes back to the host
 * ({@link ReadCounters#plannedDeviceToHostBytes()} is 0), and the device batches equal the CPU
 * decoder's host batches byte for byte. Chunks whose pages the kernels do not decode are given
 * back to the CPU once, counted; the simulated backend's own device decoder (the CPU decoder writing
 * into simulated device memory) takes the same chunks in place with the same crossings; a corrupt page header in device memory is an error naming the
 * file and the column. The emulation's own copies in and out of its memory (what a GPU does not do)
 * go through the runtime's stream, not the reader's counters.
 */
class TestResidentChunksOnTheDevice
{
    @RegisterExtension
    static final SimulatedDevice DEVICE = new SimulatedDevice();

    // The compressed-chunk test's columns, with decimals and dates the kernels also take.
    private static Dataset<Row> rows()
    {
        return TestCompressedChunksOnTheDevice.rows().selectExpr("*", "CASE WHEN id % 6 = 0 THEN NULL ELSE CAST(id * 1.25 - 1000 AS DECIMAL(9, 2)) END AS dec9",
                "date_add(DATE '1970-01-01', CAST(id % 20000 AS INT)) AS dt");
    }

    private static Function<Path, ParquetDataSource> gds()
    {
        return path -> GdsParquetDataSource.open(DEVICE.runtime(), 0, path, path.toString(), new ReadPlanning(1 << 20, 64 << 20, 64 << 20), Optional.empty(), 1);
    }

    @Test
    void aGdsReadDecodedOnTheDeviceLeavesNoRowDataInHostMemory(@TempDir Path directory)
            throws Exception
    {
        // Compressed bodies decompressed where they lie, and staged, over all files.
        long[] bodies = new long[2];
        Map<String, String> options = Map.of("parquet.page.size", "4096", "parquet.dictionary.page.size", "65536", "parquet.block.size", "65536");
        WrittenPerVersionAndCodec.forEach(directory, rows(), options, written -> {
            Path file = written.file();
            String label = written.label();
            List<BatchCountingKernels> built = new ArrayList<>();
            DeviceDecodeComparison.FileResult result = DeviceDecodeComparison.compareFileThrough(DEVICE.runtime(), Optional.of(target -> {
                BatchCountingKernels kernels = new BatchCountingKernels(target);
                built.add(kernels);
                return kernels;
            }), file, Optional.of(gds()));
            long chunks = 0;
            for (BlockMetaData block : footer(file).getBlocks()) {
                chunks += block.getColumns().size();
            }
            if (written.v1()) {
                assertTrue(footer(file).getBlocks().size() > 1, label + ": several row groups");
            }
            DevicePageCounts counts = result.counts();
            ReadCounters reads = result.deviceSideReads().orElseThrow();
            assertEquals(Map.of(), result.fallbacks(), label + ": every chunk is decoded on the device");
            assertEquals(Map.of(), counts.residentGivenBack(), label + ": no chunk goes back to the CPU");
            assertEquals(chunks, result.deviceChunks(), label + ": chunks the device decoded");
            assertEquals(chunks, counts.residentChunks(), label + ": every chunk decoded where the GDS read left it (" + counts + ")");
            assertEquals(chunks, reads.residentChunks(), label + ": every chunk read to stay in device memory");
            assertEquals(0, counts.uploadedBytes(), label + ": nothing uploaded (" + counts + ")");
            assertEquals(0, reads.plannedDeviceToHostBytes(), label + ": 0 bytes of row data copied back to host memory");
            assertTrue(reads.storageToDeviceBytes() + reads.hostToDeviceBytes() > 0, label + ": the chunks were read into device memory");
            // What crosses back is the footer and the walked headers' descriptors and page framing: metadata, a few bytes per page.
            assertTrue(counts.framingBytes() > 0 && counts.framingBytes() < counts.decodedBytes() / 10, label + ": framing read back (" + counts + ")");
            assertEquals(written.compressed() ? chunks : 0, counts.decompressedChunks(), label + ": decompressed on the device (" + counts + ")");
            // One batched decompression per row group (nvCOMP's batched API over all of its compressed pages), not one per chunk.
            int rowGroups = footer(file).getBlocks().size();
            assertEquals(written.compressed() ? rowGroups : 0, built.stream().mapToInt(kernels -> kernels.batches).sum(), label + ": decompression batches");
            // A compressed body that starts on nvCOMP's alignment is decompressed where the read put it, never copied; the others are staged, counted.
            long inPlace = built.stream().mapToLong(kernels -> kernels.inPlaceInputs).sum();
            assertEquals(inPlace, counts.residentBodiesInPlace(), label + ": bodies decompressed in place (" + counts + ")");
            assertEquals(0, built.stream().mapToLong(kernels -> kernels.inPlaceInputsCopied).sum(), label + ": no aligned body copied");
            assertEquals(built.stream().mapToLong(kernels -> kernels.inputs).sum() - inPlace, counts.residentBodiesStaged(), label + ": the other bodies staged");
            bodies[0] += inPlace;
            bodies[1] += counts.residentBodiesStaged();

            // The simulated backend's own device decoder takes the same chunks in place, with the same (absent) crossings.
            DeviceDecodeComparison.FileResult simulated = DeviceDecodeComparison.compareFileThrough(DEVICE.runtime(), Optional.empty(), file, Optional.of(gds()));
            ReadCounters simulatedReads = simulated.deviceSideReads().orElseThrow();
            assertEquals(Map.of(), simulated.fallbacks(), label + ": every chunk is decoded by the simulated device decoder");
            assertEquals(chunks, simulatedReads.residentChunks(), label + ": the simulated decoder reads every chunk where the GDS read left it");
            assertEquals(0, simulatedReads.plannedDeviceToHostBytes(), label + ": the simulated decoder copies no row data back");
        });
        assertTrue(bodies[0] > 0 && bodies[1] > 0, "both aligned and misaligned bodies occur: " + bodies[0] + " in place, " + bodies[1] + " staged");
        assertEquals(0, DEVICE.runtime().deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
    }

    @Test
    void pagesTheKernelsDoNotDecodeGoBackToTheCpuOnceCounted(@TempDir Path directory)
            throws Exception
    {
        // A dictionary that fills up after some pages (few values first, then all distinct): the chunk's later pages are PLAIN, which the kernels do not mix.
        Path written = directory.resolve("mixed");
        TestingSpark.start().range(0, 20000, 1, 1).selectExpr("id % 7 AS small",
                        "CASE WHEN id < 5000 THEN concat('k', CAST(id % 10 AS STRING)) ELSE concat('k', CAST(id AS STRING)) END AS s")
                .write().option("compression", "snappy").option("parquet.enable.dictionary", "true").option("parquet.dictionary.page.size", "8192")
                .option("parquet.page.size", "1024").parquet(written.toString());
        Path file = parquetFile(written);
        DeviceDecodeComparison.FileResult result = DeviceDecodeComparison.compareFileThrough(DEVICE.runtime(), Optional.of(EmulatedDeviceKernels::new), file,
                Optional.of(gds()));
        DevicePageCounts counts = result.counts();
        ReadCounters reads = result.deviceSideReads().orElseThrow();
        assertEquals(Map.of("dictionary and PLAIN data pages in one chunk", 1L), counts.residentGivenBack(), counts.toString());
        assertEquals(Map.of("dictionary and PLAIN data pages in one chunk", 1L), result.fallbacks(), "the given-back chunk is a counted CPU fallback");
        long givenBack = 0;
        for (ColumnChunkMetaData column : footer(file).getBlocks().get(0).getColumns()) {
            if (column.getPath().toDotString().equals("s")) {
                givenBack = column.getTotalSize();
            }
        }
        assertEquals(givenBack, reads.plannedDeviceToHostBytes(), "only the given-back chunk crossed back, once");
        assertEquals(1, counts.residentChunks(), "the other chunk decoded where it lies (" + counts + ")");
        // The simulated backend's decoder makes the same crossing for the same chunk.
        DeviceDecodeComparison.FileResult simulated = DeviceDecodeComparison.compareFileThrough(DEVICE.runtime(), Optional.empty(), file, Optional.of(gds()));
        assertEquals(givenBack, simulated.deviceSideReads().orElseThrow().plannedDeviceToHostBytes(), "the simulated decoder copies the same chunk back");
        assertEquals(0, DEVICE.runtime().deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
    }

    @Test
    void aChunkWhosePagesClaimMoreThanItsFooterIsNotSizedOnTheDevice(@TempDir Path directory)
            throws Exception
    {
        Path written = directory.resolve("claims");
        rows().select("i", "s").write().option("compression", "snappy").parquet(written.toString());
        // The footer says column s decodes to 10 bytes; its page headers claim its real size. The device sizes nothing past
        // the footer: the chunk goes to the CPU decoder (which sizes page by page), counted, and the rows stay right.
        ParquetSurgery surgery = ParquetSurgery.open(parquetFile(written));
        Path claims = surgery.write(directory.resolve("claims.parquet"), footer -> footer.getRow_groups().forEach(group -> group.getColumns().stream()
                .filter(column -> column.getMeta_data().getPath_in_schema().equals(List.of("s")))
                .forEach(column -> column.getMeta_data().setTotal_uncompressed_size(10))));
        String reason = "pages that decode to more bytes than the footer gives the chunk";
        DeviceDecodeComparison.FileResult kernels = DeviceDecodeComparison.compareFileThrough(DEVICE.runtime(), Optional.of(EmulatedDeviceKernels::new), claims,
                Optional.of(gds()));
        assertEquals(Map.of(reason, 1L), kernels.counts().residentGivenBack(), kernels.counts().toString());
        assertEquals(Map.of(reason, 1L), kernels.fallbacks());
        // The same rule on the upload path (the in-memory source: pages through parquet-mr).
        DeviceDecodeComparison.FileResult uploaded = DeviceDecodeComparison.compareFile(DEVICE.runtime(), Optional.of(EmulatedDeviceKernels::new), claims);
        assertEquals(Map.of(reason, 1L), uploaded.fallbacks());
        assertEquals(0, DEVICE.runtime().deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
    }

    @Test
    void theCorporaThroughTheGdsRouteEqualTheCpuDecoder()
            throws Exception
    {
        DeviceDecodeComparison.ResidentSummary summary = DeviceDecodeComparison.residentOverCorpora(DEVICE.runtime(), Optional.of(EmulatedDeviceKernels::new), gds());
        System.out.println("resident chunks over the corpora (emulated kernels): " + summary);
        assertTrue(summary.files() >= 40, "files compared: " + summary);
        assertTrue(summary.residentChunks() > 150, "chunks decoded in place: " + summary);
        assertEquals(0, DEVICE.runtime().deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
    }

    @Test
    void aCorruptPageHeaderInDeviceMemoryIsAnErrorNamingTheColumn(@TempDir Path directory)
            throws Exception
    {
        Path written = directory.resolve("plain");
        rows().select("i", "d").write().option("compression", "uncompressed").parquet(written.toString());
        Path file = parquetFile(written);
        long headerAt = -1;
        for (ColumnChunkMetaData column : footer(file).getBlocks().get(0).getColumns()) {
            if (column.getPath().toDotString().equals("d")) {
                headerAt = column.getStartingPos();
            }
        }
        byte[] bytes = Files.readAllBytes(file);
        // The first field header of the chunk's first page header: field type 15 is no Thrift compact type.
        bytes[(int) headerAt] = (byte) 0x1F;
        Path corrupt = directory.resolve("corrupt.parquet");
        Files.write(corrupt, bytes);

        ParquetReadOptions options = DeviceDecodeComparison.readOptions();
        GdsReadSettings settings = DeviceDecodeComparison.settings();
        DeviceDecodeComparison.OpenedFile opened = DeviceDecodeComparison.OpenedFile.of(corrupt, settings, options);
        KernelEmulation[] kernels = new KernelEmulation[1];
        CorruptParquetException error;
        try (ParquetDataSource source = gds().apply(corrupt);
                RootAllocator allocator = new RootAllocator();
                DeviceStream stream = DEVICE.runtime().newStream(0);
                ParquetSliceReader reader = opened.reader(settings, options, allocator, source)) {
            reader.useDeviceKernels(target -> {
                EmulatedDeviceKernels built = new EmulatedDeviceKernels(target);
                kernels[0] = built;
                return built;
            });
            error = assertThrows(CorruptParquetException.class, () -> {
                Optional<DeviceBatch> batch;
                while ((batch = reader.nextOnDevice(1000, new DeviceTarget(DEVICE.runtime(), 0, stream))).isPresent()) {
                    batch.get().close();
                }
            });
        }
        assertTrue(error.getMessage().contains(corrupt.toString()) && error.getMessage().contains("column d") && error.getMessage().contains(String.valueOf(headerAt)),
                error.getMessage());
        assertEquals(0, kernels[0].allocatedBytes(), "emulated device memory left after the error");
        assertEquals(0, DEVICE.runtime().deviceAllocator(0).allocatedBytes(), "device buffers left after the error");
    }

    /**
     * The emulated kernels, counting the batched decompression calls, their inputs, the inputs read where a borrowed
     * (resident) chunk lies, and how many of those a copy launch also read from.
     */
    private static final class BatchCountingKernels
            extends EmulatedDeviceKernels
    {
        private final Map<Long, Long> borrowed = new TreeMap<>();
        private final Set<Long> copySources = new HashSet<>();
        private int batches;
        private long inputs;
        private long inPlaceInputs;
        private long inPlaceInputsCopied;

        BatchCountingKernels(DeviceTarget target)
        {
            super(target);
        }

        @Override
        public long borrow(DeviceBuffer buffer, long offset, long length)
        {
            long address = super.borrow(buffer, offset, length);
            borrowed.put(address, length);
            return address;
        }

        @Override
        public void giveBack(long address)
        {
            borrowed.remove(address);
            super.giveBack(address);
        }

        @Override
        public void copyRanges(long ranges, int count)
        {
            copySources.addAll(CopyRangeTable.sources(this, ranges, count));
            super.copyRanges(ranges, count);
        }

        @Override
        public String[] decompress(CompressionCodecName codec, long[] in, long[] inBytes, long[] out, long[] outBytes)
        {
            batches++;
            inputs += in.length;
            for (long address : in) {
                boolean resident = borrowed.entrySet().stream().anyMatch(chunk -> address >= chunk.getKey() && address < chunk.getKey() + chunk.getValue());
                if (resident) {
                    inPlaceInputs++;
                    if (copySources.contains(address)) {
                        inPlaceInputsCopied++;
                    }
                }
            }
            return super.decompress(codec, in, inBytes, out, outBytes);
        }
    }
}
