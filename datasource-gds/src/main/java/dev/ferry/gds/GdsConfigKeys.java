package dev.ferry.gds;

import dev.ferry.conf.ConfigKey;
import dev.ferry.conf.ConfigKeySet;
import dev.ferry.topology.route.FileConsumer;

import java.util.List;

/** Settings of the {@code gds} data source. Each may also be given as a read option of the same name. */
public final class GdsConfigKeys
        implements ConfigKeySet
{
    public static final ConfigKey<GdsRouteSetting> ROUTE = ConfigKey.choice("spark.ferry.gds.route", GdsRouteSetting.class, GdsRouteSetting.AUTO,
            "How file bytes reach memory. auto: per file from the topology policy and the consumer (spark.ferry.gds.consumer): HOST for a "
                    + "CPU consumer, or on a machine without a GPU; for a device consumer GDS where cuFile can read directly into the GPU, BOUNCE "
                    + "through pinned host buffers where it cannot. gds, bounce, host: force one route (for a CPU consumer gds and bounce cost two "
                    + "PCIe crossings, into the device and back, which the log and the scan's explain say); a forced route the machine cannot serve "
                    + "fails the read with the reason instead of falling back.");
    public static final ConfigKey<FileConsumer> CONSUMER = ConfigKey.choice("spark.ferry.gds.consumer", FileConsumer.class, FileConsumer.CPU,
            "Where the scan's batches are wanted, which the auto route is chosen for. cpu: Spark's own operators, which decode and read on the "
                    + "host, so auto reads on HOST even on a GPU node (a GPU route would carry the raw bytes up and back down). device: a "
                    + "consumer that keeps the batches in GPU memory (the examples' GpuDataLoad), for which auto picks GDS or BOUNCE.");
    public static final ConfigKey<Integer> BATCH_ROWS = ConfigKey.integer("spark.ferry.gds.batchRows", 4096,
            "Rows per columnar batch handed to Spark.");
    public static final ConfigKey<Integer> READ_THREADS = ConfigKey.integer("spark.ferry.gds.host.readThreads", 4,
            "Positional reads one task runs in parallel on the HOST route; 1 reads on the task thread.");
    public static final ConfigKey<Long> COALESCE_GAP = ConfigKey.bytes("spark.ferry.gds.io.coalesceGap", "1m",
            "Column-chunk ranges of one row group closer than this are read as one range, reading the gap instead of paying another request.");
    public static final ConfigKey<Long> MAX_COALESCED_READ = ConfigKey.bytes("spark.ferry.gds.io.maxCoalescedRead", "64m",
            "Coalescing stops once a merged range would exceed this.");
    public static final ConfigKey<Long> READ_SLICE = ConfigKey.bytes("spark.ferry.gds.io.readSlice", "4m",
            "A merged range larger than this is read as slices of this size, in parallel.");
    public static final ConfigKey<Long> FOOTER_TAIL = ConfigKey.bytes("spark.ferry.gds.io.footerTail", "64k",
            "Bytes read from the end of a file in one request to find the footer; a larger footer costs a second read.");
    public static final ConfigKey<Long> MAX_PAGE_BYTES = ConfigKey.bytes("spark.ferry.gds.io.maxPageBytes", "512m",
            "A page whose header claims more uncompressed bytes than this, or more values than this bound holds at 4 bytes each (a level or dictionary index decodes to an int), is refused as corrupt instead of allocated.");
    public static final ConfigKey<Long> TASK_ARROW_LIMIT_BYTES = ConfigKey.bytes("spark.ferry.gds.task.arrowLimitBytes", "1g",
            "Arrow memory one task's gds scan may hold for the batches it decodes (off Spark's memory manager; the peak is added to the task's "
                    + "peak execution memory). A scan that needs more fails naming this key, never as a corrupt file; lower spark.ferry.gds.batchRows "
                    + "or raise this.");
    public static final ConfigKey<Boolean> PREFETCH_ROW_GROUPS = ConfigKey.bool("spark.ferry.gds.io.prefetch", true,
            "Read the next row group's column chunks while the current one decodes (two row groups in memory per task instead of one).");
    public static final ConfigKey<Boolean> SPLIT_ROW_GROUPS = ConfigKey.bool("spark.ferry.gds.plan.splitRowGroups", true,
            "Split a row group larger than the split target (Spark's maxPartitionBytes / bytes-per-core rule) into row ranges read by "
                    + "different tasks, each reading the pages of its rows (needs an offset index in every column chunk). Only for scans "
                    + "decoded on the host (spark.ferry.gds.consumer=cpu); device decoding reads whole row groups.");
    public static final ConfigKey<Boolean> FILTER_PUSHDOWN = ConfigKey.bool("spark.ferry.gds.filterPushdown", true,
            "Skip row groups whose min/max statistics prove a pushed filter false. Spark re-applies every filter the scan does not "
                    + "evaluate exactly (spark.ferry.gds.filter.exact).");
    public static final ConfigKey<Integer> FOOTER_THREADS = ConfigKey.integer("spark.ferry.gds.footerThreads", 8,
            "Footers the driver reads in parallel while inferring the schema and planning splits.");

    public static final ConfigKey<Integer> FOOTER_CACHE_ENTRIES = ConfigKey.integer("spark.ferry.gds.footerCacheEntries", 4096,
            "Parsed footers each JVM keeps, keyed by file path, length and modification time, so later scans of unchanged files "
                    + "neither read nor parse them again; 0 turns the cache off.");
    public static final ConfigKey<Boolean> PAGE_INDEX_PUSHDOWN = ConfigKey.bool("spark.ferry.gds.pageIndexPushdown", true,
            "With filter pushdown on, also skip pages whose column-index min/max prove the pushed filters false, reading only the "
                    + "row ranges that may match (files with column and offset indexes only). Spark re-applies every filter the scan does not "
                    + "evaluate exactly (spark.ferry.gds.filter.exact).");
    public static final ConfigKey<Boolean> ROW_FILTER = ConfigKey.bool("spark.ferry.gds.rowFilter", true,
            "With filter pushdown on, evaluate the pushed filters on every decoded batch and hand Spark only the rows that may match "
                    + "(comparisons, IN, null tests, prefixes, AND/OR/NOT on integer, date, floating, decimal, boolean and binary-collation "
                    + "string columns; others keep every row). Spark re-applies the filters that are not exact (spark.ferry.gds.filter.exact).");
    public static final ConfigKey<Boolean> FILTER_EXACT = ConfigKey.bool("spark.ferry.gds.filter.exact", true,
            "With filter pushdown and the row filter on and consumer=cpu, tell Spark that the pushed data filters the row filter "
                    + "evaluates exactly (SQL's three-valued logic, every part of the filter on a type and predicate it reads) need not be "
                    + "evaluated again after the scan, so Spark can push aggregates under them; the scan's explain string lists them as "
                    + "exactFilters. Other filters, partition-column filters and every filter of a device consumer stay above the scan.");
    public static final ConfigKey<Boolean> AGGREGATE_PUSHDOWN = ConfigKey.bool("spark.ferry.gds.aggregatePushdown", true,
            "Let Spark push COUNT, SUM, MIN and MAX (and AVG, which Spark then splits into SUM and COUNT) into the scan, with or "
                    + "without GROUP BY over columns, when no filter stays above the scan (exact pushed filters do not: spark.ferry.gds.filter.exact): inputs may be columns, length(string) and "
                    + "CASE WHEN tests of a column against literals (=, <>, IN, NOT) THEN integer literals, and integer column % literal (under ANSI). Each task returns partial results that Spark finishes; "
                    + "COUNT(*) alone without pushed filters is answered from row-group row counts. Anything the scan cannot compute exactly as Spark does "
                    + "(DISTINCT, other expressions or types) is left to Spark; one DISTINCT column is split into a GROUP BY the scan takes "
                    + "(spark.ferry.gds.aggregatePushdown.splitDistinct).");
    public static final ConfigKey<Boolean> SPLIT_DISTINCT_AGGREGATE = ConfigKey.bool("spark.ferry.gds.aggregatePushdown.splitDistinct", true,
            "With aggregate pushdown on, rewrite an aggregate over a gds table whose DISTINCT functions all take one column d "
                    + "(count(DISTINCT d) beside sums, counts, min and max) into a GROUP BY of d under the original aggregate, the plan "
                    + "Spark itself runs for one distinct column, but with the inner GROUP BY offered to the scan: Spark offers no aggregate "
                    + "with DISTINCT to a source for partial pushdown. Only where the rewrite gives Spark's answers exactly: no FILTER clauses, "
                    + "group keys and d columns, SUM over integers or decimals (an overflow fails under ANSI and is a null otherwise, in both plans), "
                    + "never over floating types, nor AVG; anything else keeps Spark's plan.");

    @Override
    public String section()
    {
        return "gds data source";
    }

    @Override
    public List<ConfigKey<?>> keys()
    {
        return List.of(ROUTE, CONSUMER, BATCH_ROWS, READ_THREADS, COALESCE_GAP, MAX_COALESCED_READ, READ_SLICE, FOOTER_TAIL, MAX_PAGE_BYTES, TASK_ARROW_LIMIT_BYTES, PREFETCH_ROW_GROUPS, SPLIT_ROW_GROUPS, FILTER_PUSHDOWN,
                FOOTER_THREADS, FOOTER_CACHE_ENTRIES, PAGE_INDEX_PUSHDOWN, ROW_FILTER, FILTER_EXACT, AGGREGATE_PUSHDOWN,
                SPLIT_DISTINCT_AGGREGATE);
    }
}
