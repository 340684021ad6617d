package dev.ferry.gds.plan;

import dev.ferry.gds.parquet.SourceFile;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

import static java.util.Objects.requireNonNull;

/** A listed file and its footer, as the driver read it. */
public record PlannedFile(SourceFile file, ParquetMetadata footer)
{
    public PlannedFile
    {
        requireNonNull(file, "file is null");
        requireNonNull(footer, "footer is null");
    }
}
