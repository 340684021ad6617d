package dev.ferry.gds;

import dev.ferry.conf.ConfigSource;
import dev.ferry.gds.GdsConfigKeys;
import dev.ferry.gds.GdsRouteSetting;
import dev.ferry.gds.io.ReadPlanning;
import dev.ferry.topology.route.FileConsumer;
import org.apache.spark.sql.internal.SQLConf;

import java.io.Serializable;
import java.util.Locale;

import static java.util.Objects.requireNonNull;

/**
 * Everything a read needs from Ferry's and Spark's settings, resolved once on the driver and shipped
 * to the tasks.
 *
 * @param datetimeRebaseMode Spark's {@code spark.sql.parquet.datetimeRebaseModeInRead} for files Spark did not write
 * @param int96RebaseMode Spark's {@code spark.sql.parquet.int96RebaseModeInRead} for files Spark did not write
 */
public record GdsReadSettings(
        GdsRouteSetting route,
        FileConsumer consumer,
        int batchRows,
        int readThreads,
        long coalesceGap,
        long maxCoalescedRead,
        long readSlice,
        int footerTail,
        long maxPageBytes,
        long taskArrowLimitBytes,
        boolean prefetchRowGroups,
        boolean filterPushdown,
        int footerThreads,
        boolean caseSensitive,
        boolean ignoreCorruptFiles,
        boolean ignoreMissingFiles,
        String sessionTimeZone,
        String datetimeRebaseMode,
        String int96RebaseMode,
        boolean int96TimestampConversion,
        int footerCacheEntries,
        boolean pageIndexPushdown,
        boolean rowFilter,
        boolean aggregatePushdown)
        implements Serializable
{
    public GdsReadSettings
    {
        requireNonNull(route, "route is null");
        requireNonNull(consumer, "consumer is null");
        requireNonNull(sessionTimeZone, "sessionTimeZone is null");
        requireNonNull(datetimeRebaseMode, "datetimeRebaseMode is null");
        requireNonNull(int96RebaseMode, "int96RebaseMode is null");
        if (batchRows <= 0) {
            throw new IllegalArgumentException(GdsConfigKeys.BATCH_ROWS.name() + " must be positive, got " + batchRows);
        }
        if (readThreads <= 0) {
            throw new IllegalArgumentException(GdsConfigKeys.READ_THREADS.name() + " must be positive, got " + readThreads);
        }
        if (taskArrowLimitBytes <= 0) {
            throw new IllegalArgumentException(GdsConfigKeys.TASK_ARROW_LIMIT_BYTES.name() + " must be positive, got " + taskArrowLimitBytes);
        }
        if (footerThreads <= 0) {
            throw new IllegalArgumentException(GdsConfigKeys.FOOTER_THREADS.name() + " must be positive, got " + footerThreads);
        }
    }

    /** Ferry keys from {@code ferry} (read options first, then the session), Spark's from its SQL configuration. */
    public static GdsReadSettings resolve(ConfigSource ferry, SQLConf spark, boolean ignoreCorruptFiles, boolean ignoreMissingFiles)
    {
        long footerTail = GdsConfigKeys.FOOTER_TAIL.get(ferry);
        if (footerTail < 8 || footerTail > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(GdsConfigKeys.FOOTER_TAIL.name() + " must be between 8 bytes and 2 GiB, got " + footerTail);
        }
        return new GdsReadSettings(
                GdsConfigKeys.ROUTE.get(ferry),
                GdsConfigKeys.CONSUMER.get(ferry),
                GdsConfigKeys.BATCH_ROWS.get(ferry),
                GdsConfigKeys.READ_THREADS.get(ferry),
                GdsConfigKeys.COALESCE_GAP.get(ferry),
                GdsConfigKeys.MAX_COALESCED_READ.get(ferry),
                GdsConfigKeys.READ_SLICE.get(ferry),
                (int) footerTail,
                GdsConfigKeys.MAX_PAGE_BYTES.get(ferry),
                GdsConfigKeys.TASK_ARROW_LIMIT_BYTES.get(ferry),
                GdsConfigKeys.PREFETCH_ROW_GROUPS.get(ferry),
                GdsConfigKeys.FILTER_PUSHDOWN.get(ferry),
                GdsConfigKeys.FOOTER_THREADS.get(ferry),
                spark.caseSensitiveAnalysis(),
                ignoreCorruptFiles,
                ignoreMissingFiles,
                spark.sessionLocalTimeZone(),
                spark.getConfString("spark.sql.parquet.datetimeRebaseModeInRead").toUpperCase(Locale.ROOT),
                spark.getConfString("spark.sql.parquet.int96RebaseModeInRead").toUpperCase(Locale.ROOT),
                Boolean.parseBoolean(spark.getConfString("spark.sql.parquet.int96TimestampConversion")),
                GdsConfigKeys.FOOTER_CACHE_ENTRIES.get(ferry),
                GdsConfigKeys.PAGE_INDEX_PUSHDOWN.get(ferry),
                GdsConfigKeys.ROW_FILTER.get(ferry),
                GdsConfigKeys.AGGREGATE_PUSHDOWN.get(ferry));
    }

    public ReadPlanning readPlanning()
    {
        return new ReadPlanning(coalesceGap, maxCoalescedRead, readSlice);
    }
}
