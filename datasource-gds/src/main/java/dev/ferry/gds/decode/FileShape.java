package dev.ferry.gds.decode;

import org.apache.parquet.schema.MessageType;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * How a file's columns become the requested Spark columns.
 *
 * @param columns one decoder per requested (data) column, in order
 * @param requestedSchema the pruned Parquet schema: only the columns to read
 */
public record FileShape(List<ColumnChunkDecoder> columns, MessageType requestedSchema)
{
    public FileShape
    {
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(requestedSchema, "requestedSchema is null");
    }
}
