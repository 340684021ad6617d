package dev.ferry.gds.plan;

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
 */
public record SourceFile(String path, long length, InternalRow partitionValues, List<String> hosts)
        implements Serializable
{
    public SourceFile
    {
        requireNonNull(path, "path is null");
        requireNonNull(partitionValues, "partitionValues is null");
        hosts = List.copyOf(requireNonNull(hosts, "hosts is null"));
    }
}
