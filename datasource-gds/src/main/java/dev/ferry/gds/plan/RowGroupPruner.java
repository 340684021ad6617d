package dev.ferry.gds.plan;

import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.parquet.CalendarRebase;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.compat.RowGroupFilter;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.catalyst.util.RebaseDateTime;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFilters;
import org.apache.spark.sql.internal.LegacyBehaviorPolicy$;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.sources.Filter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * Drops row groups whose statistics prove the pushed filters false. Filters are translated per file
 * by Spark's own {@code ParquetFilters} (the same translation, type rules and calendar rebase as
 * {@code spark.read.parquet}) and evaluated by parquet-mr's statistics filter, which already
 * distrusts the statistics of writers known to get them wrong. A filter that cannot be translated
 * prunes nothing; the rows of the row groups kept are filtered after it, by the row filter for exact
 * filters (spark.ferry.gds.filter.exact) and by Spark for the others.
 */
public final class RowGroupPruner
{
    private static final Logger log = LoggerFactory.getLogger(RowGroupPruner.class);
    private static final AtomicLong UNUSABLE_FILTERS = new AtomicLong();

    private final List<Filter> filters;
    private final SQLConf conf;
    private final GdsReadSettings settings;

    public RowGroupPruner(List<Filter> filters, SQLConf conf, GdsReadSettings settings)
    {
        this.filters = List.copyOf(requireNonNull(filters, "filters is null"));
        this.conf = requireNonNull(conf, "conf is null");
        this.settings = requireNonNull(settings, "settings is null");
    }

    /** Indexes of the row groups that may hold matching rows (all of them without usable filters), ascending. */
    @SuppressWarnings("deprecation") // the statistics-only filterRowGroups: the driver has footers, not open readers
    public int[] select(ParquetMetadata footer, String file)
    {
        List<BlockMetaData> blocks = footer.getBlocks();
        List<BlockMetaData> kept = blocks;
        Optional<FilterPredicate> combined = blocks.isEmpty() ? Optional.empty() : predicate(footer);
        if (combined.isPresent()) {
            MessageType schema = footer.getFileMetaData().getSchema();
            try {
                kept = RowGroupFilter.filterRowGroups(FilterCompat.get(combined.get()), blocks, schema);
            }
            catch (RuntimeException e) {
                UNUSABLE_FILTERS.incrementAndGet();
                log.warn("Not pruning row groups of {}: filter {} does not apply to its schema: {}", file, combined.get(), e.getMessage());
                kept = blocks;
            }
        }
        Map<BlockMetaData, Boolean> keep = new IdentityHashMap<>();
        kept.forEach(block -> keep.put(block, Boolean.TRUE));
        List<Integer> indexes = new ArrayList<>();
        for (int index = 0; index < blocks.size(); index++) {
            if (keep.containsKey(blocks.get(index))) {
                indexes.add(index);
            }
        }
        return indexes.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * The predicate the tasks give parquet-mr's column-index filter to skip pages of this file, when
     * page-index pushdown is on, some filter translates, and the predicate can be shipped (Spark's
     * translation may hold user-defined predicates; one that does not serialize is logged, counted
     * and not used).
     */
    public Optional<FilterPredicate> pageFilter(ParquetMetadata footer, String file)
    {
        if (!settings.pageIndexPushdown() || footer.getBlocks().isEmpty()) {
            return Optional.empty();
        }
        Optional<FilterPredicate> combined = predicate(footer);
        if (combined.isPresent() && !serializable(combined.get())) {
            UNUSABLE_FILTERS.incrementAndGet();
            log.warn("Not skipping pages of {}: filter {} cannot be shipped to the tasks", file, combined.get());
            return Optional.empty();
        }
        return combined;
    }

    /** Filters translated for {@code footer}'s schema and combined with AND; empty when pushdown is off or nothing translates. */
    private Optional<FilterPredicate> predicate(ParquetMetadata footer)
    {
        if (!settings.filterPushdown() || !conf.parquetFilterPushDown() || filters.isEmpty()) {
            return Optional.empty();
        }
        MessageType schema = footer.getFileMetaData().getSchema();
        CalendarRebase rebase = CalendarRebase.forDatetime(footer.getFileMetaData(), settings.datetimeRebaseMode());
        ParquetFilters translator = new ParquetFilters(schema, conf.parquetFilterPushDownDate(), conf.parquetFilterPushDownTimestamp(),
                conf.parquetFilterPushDownDecimal(), conf.parquetFilterPushDownStringPredicate(), conf.parquetFilterPushDownInFilterThreshold(),
                settings.caseSensitive(), rebaseSpec(rebase));
        FilterPredicate combined = null;
        for (Filter filter : filters) {
            Option<FilterPredicate> translated = translator.createFilter(filter);
            if (translated.isDefined()) {
                combined = combined == null ? translated.get() : FilterApi.and(combined, translated.get());
            }
        }
        return Optional.ofNullable(combined);
    }

    private static boolean serializable(FilterPredicate predicate)
    {
        try (ObjectOutputStream out = new ObjectOutputStream(OutputStream.nullOutputStream())) {
            out.writeObject(predicate);
            return true;
        }
        catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static RebaseDateTime.RebaseSpec rebaseSpec(CalendarRebase rebase)
    {
        switch (rebase) {
            case CORRECTED:
                return new RebaseDateTime.RebaseSpec(LegacyBehaviorPolicy$.MODULE$.CORRECTED(), Option.empty());
            case LEGACY:
                return new RebaseDateTime.RebaseSpec(LegacyBehaviorPolicy$.MODULE$.LEGACY(), Option.empty());
            case EXCEPTION:
                return new RebaseDateTime.RebaseSpec(LegacyBehaviorPolicy$.MODULE$.EXCEPTION(), Option.empty());
        }
        throw new IllegalArgumentException("Unknown rebase " + rebase);
    }
}
