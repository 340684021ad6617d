package dev.ferry.gds.footer;

import dev.ferry.gds.parquet.SourceFile;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Parsed footers of this JVM, keyed by path, length and modification time, so schema inference,
 * split planning and the tasks of later queries over the same unchanged files do not read and parse
 * every footer again (JFR: re-inferring the schema of a 36-file table was a sixth of a short query).
 * A file whose length or modification time changed is a different key; an unknown modification time
 * is never cached. Least recently used entries go once there are more than the configured number.
 * Footers are shared read-only: nothing in the reader mutates parquet-mr's footer objects.
 */
public final class FooterCache
{
    private static final Map<Key, ParquetMetadata> FOOTERS = new LinkedHashMap<>(64, 0.75f, true);
    private static final AtomicLong HITS = new AtomicLong();
    private static final AtomicLong MISSES = new AtomicLong();

    private FooterCache() {}

    public static Optional<ParquetMetadata> get(SourceFile file, int maxEntries)
    {
        if (maxEntries <= 0 || file.modificationTime() < 0) {
            return Optional.empty();
        }
        ParquetMetadata footer;
        synchronized (FOOTERS) {
            footer = FOOTERS.get(Key.of(file));
        }
        (footer == null ? MISSES : HITS).incrementAndGet();
        return Optional.ofNullable(footer);
    }

    public static void put(SourceFile file, ParquetMetadata footer, int maxEntries)
    {
        if (maxEntries <= 0 || file.modificationTime() < 0) {
            return;
        }
        synchronized (FOOTERS) {
            FOOTERS.put(Key.of(file), footer);
            var eldest = FOOTERS.entrySet().iterator();
            while (FOOTERS.size() > maxEntries && eldest.hasNext()) {
                eldest.next();
                eldest.remove();
            }
        }
    }

    /** Lookups that found a footer in this JVM. */
    public static long hits()
    {
        return HITS.get();
    }

    /** Lookups that had to read the footer. */
    public static long misses()
    {
        return MISSES.get();
    }

    /** Forgets every footer (tests). */
    public static void clear()
    {
        synchronized (FOOTERS) {
            FOOTERS.clear();
        }
    }

    private record Key(String path, long length, long modificationTime)
    {
        static Key of(SourceFile file)
        {
            return new Key(file.path(), file.length(), file.modificationTime());
        }
    }
}
