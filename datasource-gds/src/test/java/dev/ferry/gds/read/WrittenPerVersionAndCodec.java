package dev.ferry.gds.read;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The files the device decoder's codec tests read: the same rows written by Spark once per Parquet
 * writer version (v1 and v2 pages) and codec (snappy, zstd, gzip, lz4-raw, uncompressed), each file
 * handed to a check with its label. The v2 writer encodes longs, ints, decimals, dates, booleans and
 * plain strings with DELTA_* / RLE, which the kernels give back to the CPU, so v2 files keep only the
 * columns {@code s} and {@code d}.
 */
final class WrittenPerVersionAndCodec
{
    static final List<String> VERSIONS = List.of("PARQUET_1_0", "PARQUET_2_0");
    static final List<String> CODECS = List.of("snappy", "zstd", "gzip", "lz4_raw", "uncompressed");

    /** One written file: its writer version, codec and the Parquet file itself. */
    record Written(String version, String codec, Path file)
    {
        String label()
        {
            return version + " " + codec;
        }

        boolean v1()
        {
            return version.equals(VERSIONS.get(0));
        }

        boolean compressed()
        {
            return !codec.equals("uncompressed");
        }
    }

    /** What a test checks for one written file. */
    interface Check
    {
        void check(Written written)
                throws Exception;
    }

    private WrittenPerVersionAndCodec() {}

    /** Writes {@code rows} under {@code directory} with {@code options} for every version and codec, checking each file as it is written. */
    static void forEach(Path directory, Dataset<Row> rows, Map<String, String> options, Check check)
            throws Exception
    {
        for (String version : VERSIONS) {
            for (String codec : CODECS) {
                Path written = directory.resolve(version + "-" + codec);
                Dataset<Row> data = version.equals(VERSIONS.get(0)) ? rows : rows.select("s", "d");
                DataFrameWriter<Row> writer = data.write().option("compression", codec).option("parquet.writer.version", version);
                for (Map.Entry<String, String> option : options.entrySet()) {
                    writer = writer.option(option.getKey(), option.getValue());
                }
                writer.parquet(written.toString());
                check.check(new Written(version, codec, parquetFile(written)));
            }
        }
    }

    /** The one Parquet file Spark wrote into {@code directory}. */
    static Path parquetFile(Path directory)
            throws IOException
    {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(path -> path.getFileName().toString().endsWith(".parquet")).findFirst().orElseThrow();
        }
    }

    static ParquetMetadata footer(Path file)
            throws IOException
    {
        try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.toString()), new Configuration()))) {
            return reader.getFooter();
        }
    }
}
