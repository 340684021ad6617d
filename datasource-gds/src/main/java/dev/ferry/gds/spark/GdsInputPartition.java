package dev.ferry.gds.spark;

import dev.ferry.gds.parquet.FileSlice;
import org.apache.spark.sql.connector.read.InputPartition;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** The row groups one task reads, and the hosts that hold most of their bytes. */
final class GdsInputPartition
        implements InputPartition
{
    private static final long serialVersionUID = 1L;

    private final List<FileSlice> slices;
    private final String[] hosts;

    GdsInputPartition(List<FileSlice> slices, String[] hosts)
    {
        this.slices = List.copyOf(requireNonNull(slices, "slices is null"));
        this.hosts = requireNonNull(hosts, "hosts is null").clone();
    }

    List<FileSlice> slices()
    {
        return slices;
    }

    @Override
    public String[] preferredLocations()
    {
        return hosts.clone();
    }
}
