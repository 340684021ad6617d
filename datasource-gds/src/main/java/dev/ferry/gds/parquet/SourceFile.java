package dev.ferry.gds.parquet;

import org.apache.spark.sql.catalyst.InternalRow;

import java.io.Serializable;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One Parquet file of a scan, as listed on the driver.
 *
 * @param path a Hadoop path string ({@code file:/...})
 * @param length bytes, as listed; a task finding another length fails instead of reading a changed file
 * @param partitionValues the values of the partition columns from its {@code key=value} directories
 * @param hosts where its blocks live, for preferred locations
 * @param modificationTime milliseconds since the epoch as listed, -1 when unknown (then its footer is never cached)
 */
public record SourceFile(String path, long length, InternalRow partitionValues, List<String> hosts, long modificationTime)
        implements Serializable
{
    public SourceFile
    {
        requireNonNull(path, "path is null");
        requireNonNull(partitionValues, "partitionValues is null");
        hosts = List.copyOf(requireNonNull(hosts, "hosts is null"));
    }

    /** A file whose modification time is unknown. */
    public SourceFile(String path, long length, InternalRow partitionValues, List<String> hosts)
    {
        this(path, length, partitionValues, hosts, -1);
    }
}
