package dev.ferry.gds.read;

import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.decode.ColumnChunkDecoder;
import dev.ferry.gds.decode.DecodeSupport;
import dev.ferry.gds.decode.FileShape;
import dev.ferry.gds.plan.PlannedFile;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.spark.sql.types.StructType;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The per-chunk device fallbacks a device read of these files should expect, from the footers the
 * driver already read: each row group's chunk encodings put to the decode seam's shared device rule
 * (the one the simulated backend applies; the cuda backend adds its kernels' own refusals at run
 * time, counted there). A short preview for the scan's explain string: the first {@code maxFiles}
 * files only, and files whose columns the reader refuses are left out and counted.
 */
public record DeviceFallbackPreview(int filesLooked, int filesTotal, int filesRefused, long chunks, Map<String, Long> fallbacks)
{
    public static DeviceFallbackPreview of(List<PlannedFile> files, StructType dataReadSchema, GdsReadSettings settings, int maxFiles)
    {
        int looked = 0;
        int refused = 0;
        long chunks = 0;
        Map<String, Long> fallbacks = new TreeMap<>();
        for (PlannedFile file : files.subList(0, Math.min(maxFiles, files.size()))) {
            looked++;
            FileShape shape;
            try {
                shape = ParquetSliceReader.shapeOf(file.file().path(), file.footer().getFileMetaData(), settings, dataReadSchema);
            }
            catch (RuntimeException e) {
                // The task will say why when it reads the file; the preview only counts it.
                refused++;
                continue;
            }
            for (BlockMetaData block : file.footer().getBlocks()) {
                Map<ColumnPath, Set<Encoding>> encodings = new HashMap<>();
                for (ColumnChunkMetaData chunk : block.getColumns()) {
                    encodings.put(chunk.getPath(), chunk.getEncodings());
                }
                for (ColumnChunkDecoder column : shape.columns()) {
                    chunks++;
                    DecodeSupport support = column.deviceSupport(encodings);
                    if (!support.supported()) {
                        fallbacks.merge(support.reason(), 1L, Long::sum);
                    }
                }
            }
        }
        return new DeviceFallbackPreview(looked, files.size(), refused, chunks, fallbacks);
    }

    public DeviceFallbackPreview
    {
        fallbacks = Map.copyOf(fallbacks);
    }

    public long fallbackChunks()
    {
        return fallbacks.values().stream().mapToLong(Long::longValue).sum();
    }

    /** E.g. {@code deviceFallbacks=3/20 chunks [encoding DELTA_BINARY_PACKED: 3] (2/2 files)}. */
    public String describe()
    {
        String reasons = new TreeMap<>(fallbacks).entrySet().stream().map(entry -> entry.getKey() + ": " + entry.getValue())
                .collect(Collectors.joining(", ", "[", "]"));
        return "deviceFallbacks=" + fallbackChunks() + "/" + chunks + " chunks " + reasons + " (" + looked() + ")";
    }

    private String looked()
    {
        return filesLooked + "/" + filesTotal + " files" + (filesRefused > 0 ? ", " + filesRefused + " unreadable" : "");
    }
}
