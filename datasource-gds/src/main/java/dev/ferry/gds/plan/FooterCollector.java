package dev.ferry.gds.plan;

import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.footer.FooterCache;
import dev.ferry.gds.footer.FooterReader;
import dev.ferry.gds.io.HostParquetDataSource;
import dev.ferry.gds.io.LocalFiles;
import dev.ferry.gds.io.PrefetchedRanges;
import dev.ferry.gds.parquet.CorruptParquetException;
import dev.ferry.gds.parquet.SourceFile;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The driver's footer reads, in parallel, for schema inference and split planning. Honours
 * {@code ignoreCorruptFiles} and {@code ignoreMissingFiles}: a skipped file is logged and counted.
 */
public final class FooterCollector
{
    private static final Logger log = LoggerFactory.getLogger(FooterCollector.class);
    private static final AtomicLong SKIPPED_FILES = new AtomicLong();

    private FooterCollector() {}

    public static List<PlannedFile> collect(List<SourceFile> files, GdsReadSettings settings, ParquetReadOptions options)
    {
        if (files.isEmpty()) {
            return List.of();
        }
        int threads = Math.min(settings.footerThreads(), files.size());
        ExecutorService pool = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "ferry-gds-footer");
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<Optional<PlannedFile>>> futures = new ArrayList<>();
            for (SourceFile file : files) {
                futures.add(pool.submit(() -> readOne(file, settings, options)));
            }
            List<PlannedFile> planned = new ArrayList<>();
            for (Future<Optional<PlannedFile>> future : futures) {
                future.get().ifPresent(planned::add);
            }
            return planned;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new InterruptedIOException("Interrupted while reading Parquet footers"));
        }
        catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException) {
                throw (RuntimeException) e.getCause();
            }
            throw new IllegalStateException("Reading Parquet footers failed", e.getCause());
        }
        finally {
            pool.shutdownNow();
        }
    }

    /** Files the driver skipped under ignoreCorruptFiles or ignoreMissingFiles in this JVM. */
    public static long skippedFiles()
    {
        return SKIPPED_FILES.get();
    }

    private static Optional<PlannedFile> readOne(SourceFile file, GdsReadSettings settings, ParquetReadOptions options)
    {
        Optional<ParquetMetadata> cached = FooterCache.get(file, settings.footerCacheEntries());
        if (cached.isPresent()) {
            return Optional.of(new PlannedFile(file, cached.get()));
        }
        try (HostParquetDataSource source = HostParquetDataSource.open(LocalFiles.localPath(file.path()), file.path(), settings.readPlanning(), Optional.empty())) {
            ParquetMetadata footer = FooterReader.read(source, options, settings.footerTail(), new PrefetchedRanges());
            FooterCache.put(file, footer, settings.footerCacheEntries());
            return Optional.of(new PlannedFile(file, footer));
        }
        catch (FileNotFoundException | NoSuchFileException e) {
            if (settings.ignoreMissingFiles()) {
                SKIPPED_FILES.incrementAndGet();
                log.warn("Skipping missing file {} (ignoreMissingFiles)", file.path());
                return Optional.empty();
            }
            throw new UncheckedIOException("File " + file.path() + " disappeared after listing", e);
        }
        catch (CorruptParquetException e) {
            if (settings.ignoreCorruptFiles()) {
                SKIPPED_FILES.incrementAndGet();
                log.warn("Skipping corrupt file {} (ignoreCorruptFiles): {}", file.path(), e.getMessage());
                return Optional.empty();
            }
            throw e;
        }
        catch (IOException e) {
            if (settings.ignoreCorruptFiles()) {
                SKIPPED_FILES.incrementAndGet();
                log.warn("Skipping unreadable file {} (ignoreCorruptFiles): {}", file.path(), e.getMessage());
                return Optional.empty();
            }
            throw new UncheckedIOException("Cannot read " + file.path() + ": " + e.getMessage(), e);
        }
    }
}
