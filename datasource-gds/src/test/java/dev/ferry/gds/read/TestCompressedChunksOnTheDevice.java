package dev.ferry.gds.read;

import dev.ferry.gds.TestingSpark;
import dev.ferry.gds.decode.cuda.EmulatedDeviceKernels;
import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static dev.ferry.gds.read.WrittenPerVersionAndCodec.footer;
import static dev.ferry.gds.read.WrittenPerVersionAndCodec.parquetFile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compressed column chunks through the device decoder (emulated kernels, simulated backend): the
 * codec seam keeps each page body compressed, the chunk's one upload carries the bodies as stored,
 * the batched decompression (the CPU standing in for nvCOMP, from emulated device memory into it)
 * and the kernels decode them, and the device batches equal the CPU decoder's byte for byte, for
 * snappy, zstd, gzip, lz4-raw and uncompressed chunks, v1 and v2 pages, dictionary and PLAIN,
 * required and optional columns. The upload is the compressed size: what it saves against the
 * decoded bytes is exactly what the footer says compression saved (total uncompressed size minus
 * total size, page headers being the same in both). A corrupt compressed page is an error naming
 * the file and the column, never wrong rows. The simulated backend's own device decoder crosses
 * the same bytes: its host-to-device counter is the emulated kernels' upload exactly.
 */
class TestCompressedChunksOnTheDevice
{
    @RegisterExtension
    static final SimulatedDevice DEVICE = new SimulatedDevice();

    static Dataset<Row> rows()
    {
        return TestingSpark.start().range(0, 6000, 1, 1).selectExpr(
                "id",
                "CASE WHEN id % 5 = 0 THEN NULL ELSE CAST(id % 1000 AS INT) END AS i",
                "CASE WHEN id % 4 = 0 THEN NULL ELSE concat('s', CAST(id % 40 AS STRING)) END AS s",
                "concat('plain-', CAST(id * 7919 AS STRING)) AS p",
                "CAST(id AS DOUBLE) / 3 AS d",
                "id % 3 = 0 AS b");
    }

    @Test
    void compressedChunksDecodeOnTheDeviceFromTheirCompressedBytes(@TempDir Path directory)
            throws Exception
    {
        WrittenPerVersionAndCodec.forEach(directory, rows(), Map.of("parquet.page.size", "4096", "parquet.dictionary.page.size", "4096"), written -> {
            Path file = written.file();
            DeviceDecodeComparison.FileResult result = DeviceDecodeComparison.compareFile(DEVICE.runtime(), Optional.of(EmulatedDeviceKernels::new), file);
            // The simulated backend's own device decoder makes the same upload: its host-to-device bytes are the bodies as stored.
            DeviceDecodeComparison.FileResult simulated = DeviceDecodeComparison.compareFile(DEVICE.runtime(), Optional.empty(), file);
            String label = written.label();
            assertEquals(Map.of(), result.fallbacks(), label + ": every chunk is decoded on the device");
            long chunks = 0;
            long savedByCompression = 0;
            for (BlockMetaData block : footer(file).getBlocks()) {
                for (ColumnChunkMetaData column : block.getColumns()) {
                    chunks++;
                    savedByCompression += column.getTotalUncompressedSize() - column.getTotalSize();
                }
            }
            assertEquals(chunks, result.deviceChunks(), label + ": chunks the device decoded");
            assertEquals(Map.of(), simulated.fallbacks(), label + ": every chunk is decoded by the simulated device decoder");
            assertEquals(result.counts().uploadedBytes(), simulated.hostToDeviceBytes(), label + ": the simulated backend uploads the bodies as stored");
            var counts = result.counts();
            assertEquals(savedByCompression, counts.decodedBytes() - counts.uploadedBytes(), label + ": the upload carries the page bodies as stored (" + counts + ")");
            if (!written.compressed()) {
                assertEquals(0, counts.decompressedChunks(), label + ": nothing to decompress (" + counts + ")");
                assertEquals(0, counts.framingBytes(), label + ": framing read on the host (" + counts + ")");
            }
            else {
                assertEquals(chunks, counts.decompressedChunks(), label + ": every chunk decompressed on the device (" + counts + ")");
                assertTrue(counts.uploadedBytes() < counts.decodedBytes(), label + ": the compressed upload is smaller (" + counts + ")");
                assertTrue(counts.framingBytes() > 0, label + ": framing read back from device memory (" + counts + ")");
            }
        });
        assertEquals(0, DEVICE.runtime().deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
    }

    @Test
    void withoutADeviceDecompressorTheCpuDecompressesAndTheKernelsStillDecode(@TempDir Path directory)
            throws Exception
    {
        Path written = directory.resolve("snappy");
        rows().write().option("compression", "snappy").option("parquet.page.size", "4096").parquet(written.toString());
        Path file = parquetFile(written);
        // nvCOMP missing (as on a GPU machine without its library): the chunks must not fall back to the CPU decoder.
        DeviceDecodeComparison.FileResult result = DeviceDecodeComparison.compareFile(DEVICE.runtime(), Optional.of(target -> new EmulatedDeviceKernels(target)
        {
            @Override
            public Optional<String> cannotDecompress(CompressionCodecName codec)
            {
                return Optional.of("nvCOMP unavailable: not in this test");
            }
        }), file);
        long chunks = 0;
        long uncompressed = 0;
        for (BlockMetaData block : footer(file).getBlocks()) {
            for (ColumnChunkMetaData column : block.getColumns()) {
                chunks++;
                uncompressed += column.getTotalUncompressedSize();
            }
        }
        var counts = result.counts();
        assertEquals(Map.of(), result.fallbacks(), "every chunk is still decoded on the device (" + counts + ")");
        assertEquals(chunks, result.deviceChunks());
        assertEquals(Map.of("nvCOMP unavailable: not in this test", chunks), counts.decompressedOnHost(), counts.toString());
        assertEquals(0, counts.decompressedChunks(), counts.toString());
        assertEquals(counts.decodedBytes(), counts.uploadedBytes(), "the bodies cross decompressed (" + counts + ")");
        assertTrue(counts.uploadedBytes() > 0 && counts.uploadedBytes() < uncompressed, "bodies without page headers (" + counts + ")");
        assertEquals(0, DEVICE.runtime().deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
    }

    @Test
    void aCorruptCompressedPageIsAnErrorNamingFileAndColumn(@TempDir Path directory)
            throws Exception
    {
        Path written = directory.resolve("corrupt");
        rows().write().option("compression", "snappy").option("parquet.enable.dictionary", "false").parquet(written.toString());
        Path file = parquetFile(written);
        ColumnChunkMetaData plain = footer(file).getBlocks().get(0).getColumns().stream()
                .filter(column -> column.getPath().toDotString().equals("p")).findFirst().orElseThrow();
        assertEquals(CompressionCodecName.SNAPPY, plain.getCodec());
        byte[] bytes = Files.readAllBytes(file);
        int start = Math.toIntExact(plain.getStartingPos());
        ByteArrayInputStream in = new ByteArrayInputStream(bytes, start, bytes.length - start);
        PageHeader header = Util.readPageHeader(in);
        int body = start + (bytes.length - start - in.available());
        assertTrue(header.getCompressed_page_size() > 8, "a data page body to corrupt: " + header);
        // The snappy block's leading length varint: the body no longer decompresses to what the page header says.
        bytes[body] ^= 0x01;
        Path corrupt = directory.resolve("corrupt.parquet");
        Files.write(corrupt, bytes);
        CorruptParquetException device = assertThrows(CorruptParquetException.class, () -> DeviceDecodeComparison.deviceOnly(DEVICE.runtime(), Optional.of(EmulatedDeviceKernels::new), corrupt));
        // The comparison reads from memory under the source id memory:test; the reader names it.
        assertTrue(device.getMessage().startsWith("Malformed Parquet file memory:test: column p: data page 0"), device.getMessage());
        assertTrue(device.getMessage().contains("did not decompress on the device"), device.getMessage());
        CorruptParquetException simulated = assertThrows(CorruptParquetException.class, () -> DeviceDecodeComparison.deviceOnly(DEVICE.runtime(), Optional.empty(), corrupt));
        assertTrue(simulated.getMessage().startsWith("Malformed Parquet file memory:test: column p: data page 0 does not decompress"), simulated.getMessage());
        assertEquals(0, DEVICE.runtime().deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
    }
}
