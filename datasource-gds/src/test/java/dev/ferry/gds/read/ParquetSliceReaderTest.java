package dev.ferry.gds.read;

import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.GdsRouteSetting;
import dev.ferry.gds.TestingFiles;
import dev.ferry.gds.io.DiskRange;
import dev.ferry.gds.io.ReadPlanning;
import dev.ferry.gds.io.TestingParquetDataSource;
import dev.ferry.gds.parquet.FileSlice;
import dev.ferry.gds.parquet.SourceFile;
import dev.ferry.topology.route.FileConsumer;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reader through the seam alone (no Spark job): what it asks the data source for, and that it frees what it allocates. */
class ParquetSliceReaderTest
{
    @Test
    void footerIsOneTailReadAndEachRowGroupOnePlannedRequest()
            throws Exception
    {
        byte[] file = Files.readAllBytes(TestingFiles.parquetTesting().resolve("data").resolve("alltypes_tiny_pages.parquet"));
        TestingParquetDataSource source = new TestingParquetDataSource(file, new ReadPlanning(1 << 20, 64 << 20, 64 << 20), Optional.empty());
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("string_col", DataTypes.StringType).add("missing", DataTypes.LongType);
        FileSlice slice = new FileSlice(new SourceFile("memory:test", file.length, InternalRow.empty(), List.of()), new int[] {0}, file.length, 7300);
        ParquetReadOptions options = HadoopReadOptions.builder(new Configuration()).build();
        long rows = 0;
        long idSum = 0;
        long missingNulls = 0;
        try (RootAllocator allocator = new RootAllocator()) {
            try (ParquetSliceReader reader = new ParquetSliceReader(slice, source, settings(), options, schema, allocator, Optional.empty(), Optional.empty())) {
                assertEquals(1, source.requests().size(), "the footer comes from one tail read");
                Optional<DecodedBatch> batch;
                while ((batch = reader.next(1000)).isPresent()) {
                    List<FieldVector> columns = batch.get().columns();
                    IntVector ids = (IntVector) columns.get(0);
                    for (int row = 0; row < batch.get().rows(); row++) {
                        idSum += ids.get(row);
                        missingNulls += columns.get(2).isNull(row) ? 1 : 0;
                    }
                    rows += batch.get().rows();
                    assertTrue(batch.get().rows() <= 1000);
                    columns.forEach(FieldVector::close);
                }
                assertEquals(1, reader.rowGroupsStarted());
            }
            assertEquals(0, allocator.getAllocatedMemory(), "every vector is freed");
        }
        assertEquals(7300, rows);
        assertEquals(7299L * 7300 / 2, idSum, "ids 0..7299");
        assertEquals(7300, missingNulls, "a column the file lacks reads as nulls");
        List<DiskRange> requests = source.requests();
        assertEquals(2, requests.size(), "tail, then one coalesced request for both column chunks: " + requests);
        assertEquals(0, source.counters().unplannedReads());
    }

    private static GdsReadSettings settings()
    {
        return new GdsReadSettings(GdsRouteSetting.HOST, FileConsumer.CPU, 1000, 1, 1 << 20, 64 << 20, 64 << 20, 64 * 1024, 512 << 20, 1L << 30, false, true, 1, false, false, false,
                "UTC", "CORRECTED", "CORRECTED", false, 0, true, true, true);
    }
}
