package dev.ferry.gds.read;

import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.sources.AlwaysFalse;
import org.apache.spark.sql.sources.AlwaysTrue;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNotNull;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringStartsWith;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.util.BitSet;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Row-level evaluation of the pushed data filters on a decoded batch, so the scan hands Spark only the
 * rows that may match. Spark re-applies the filters that are not {@link #exact} after the scan, so for
 * those a row may be kept wrongly (cost only) but never dropped wrongly: a filter is evaluated with SQL's three-valued logic, each
 * row's result tracked as the set of outcomes it may have (true, false, null), and a row is dropped
 * only when "true" is not among them. Filters this class cannot evaluate (other types, other
 * predicates, literals it cannot convert) may be anything, which keeps every row they decide.
 * Decimal comparisons are exact at any literal scale ({@link DecimalValues}).
 */
public final class RowFilter
{
    private static final String CHAR_VARCHAR_TYPE = "__CHAR_VARCHAR_TYPE_STRING";

    private final FilterNode root;
    private final BitSet columns;
    private byte[] outcomes = new byte[0];

    private RowFilter(FilterNode root, BitSet columns)
    {
        this.root = requireNonNull(root, "root is null");
        this.columns = (BitSet) columns.clone();
    }

    /** Whether evaluating needs batch column {@code column}; {@link #select} reads no other. */
    public boolean reads(int column)
    {
        return columns.get(column);
    }

    /**
     * The conjunction of {@code filters} over the columns of {@code dataSchema} (the batch's columns,
     * in order), or empty when none of it can be evaluated, so no row could ever be dropped.
     */
    public static Optional<RowFilter> compile(List<Filter> filters, StructType dataSchema, boolean caseSensitive)
    {
        return compile(filters, List.of(), dataSchema, caseSensitive);
    }

    /**
     * As {@link #compile(List, StructType, boolean)}, where Spark was told that those of {@code filters}
     * also in {@code exactFilters} are {@link #exact} and does not evaluate them again: each of them
     * must compile exactly over {@code dataSchema}, else this fails, and a batch column it cannot read
     * fails the read instead of keeping every row.
     */
    public static Optional<RowFilter> compile(List<Filter> filters, List<Filter> exactFilters, StructType dataSchema, boolean caseSensitive)
    {
        FilterNode conjunction = null;
        BitSet columns = new BitSet();
        for (Filter filter : filters) {
            boolean exactRequired = exactFilters.contains(filter);
            FilterNode node = compile(filter, dataSchema, caseSensitive, columns, exactRequired);
            if (exactRequired && !node.exact()) {
                throw new IllegalStateException("Pushed filter " + filter + " was planned as exact but is not evaluated exactly over " + dataSchema.simpleString());
            }
            conjunction = conjunction == null ? node : FilterNode.and(conjunction, node);
        }
        if (conjunction == null || conjunction.opaque()) {
            return Optional.empty();
        }
        return Optional.of(new RowFilter(conjunction, columns));
    }

    /**
     * Whether {@code filter} over the columns of {@code dataSchema} is evaluated exactly: every row
     * gets one definite SQL outcome (true, false or null, as Spark's three-valued logic gives it) and
     * only the true rows are kept, so Spark need not evaluate it again. False where any part of it
     * is not evaluated here (types, predicates, literals, names this class does not read).
     */
    public static boolean exact(Filter filter, StructType dataSchema, boolean caseSensitive)
    {
        return compile(filter, dataSchema, caseSensitive, new BitSet(), false).exact();
    }

    /**
     * Writes the indexes of the rows of {@code columns} (the first {@code rows}) that may match into
     * {@code selected}, ascending, and returns how many there are.
     */
    public int select(List<FieldVector> columns, int rows, int[] selected)
    {
        if (outcomes.length < rows) {
            outcomes = new byte[rows];
        }
        root.evaluate(columns, rows, outcomes);
        int kept = 0;
        for (int row = 0; row < rows; row++) {
            // Branch-free: the slot is always written, the count moves only for kept rows.
            selected[kept] = row;
            kept += outcomes[row] & Outcomes.TRUE;
        }
        return kept;
    }

    private static FilterNode compile(Filter filter, StructType schema, boolean caseSensitive, BitSet columns, boolean exactRequired)
    {
        if (filter instanceof And) {
            return FilterNode.and(compile(((And) filter).left(), schema, caseSensitive, columns, exactRequired), compile(((And) filter).right(), schema, caseSensitive, columns, exactRequired));
        }
        if (filter instanceof Or) {
            return FilterNode.or(compile(((Or) filter).left(), schema, caseSensitive, columns, exactRequired), compile(((Or) filter).right(), schema, caseSensitive, columns, exactRequired));
        }
        if (filter instanceof Not) {
            return FilterNode.not(compile(((Not) filter).child(), schema, caseSensitive, columns, exactRequired));
        }
        if (filter instanceof AlwaysTrue) {
            return FilterNode.constant(Outcomes.TRUE);
        }
        if (filter instanceof AlwaysFalse) {
            return FilterNode.constant(Outcomes.FALSE);
        }
        String[] references = filter.references();
        if (references.length != 1) {
            return FilterNode.constant(Outcomes.ANY);
        }
        int column = columnIndex(references[0], schema, caseSensitive);
        if (column < 0) {
            return FilterNode.constant(Outcomes.ANY);
        }
        StructField field = schema.fields()[column];
        if (field.metadata().contains(CHAR_VARCHAR_TYPE)) {
            // CHAR/VARCHAR columns: Spark pads or checks the values after the scan, so the stored bytes
            // are not what its filters compare.
            return FilterNode.constant(Outcomes.ANY);
        }
        Optional<ColumnValues> values = ColumnValues.of(column, field.dataType());
        if (values.isEmpty()) {
            return FilterNode.constant(Outcomes.ANY);
        }
        ColumnValues target = values.get();
        target.exactRequired = exactRequired;
        columns.set(column);
        if (filter instanceof IsNull) {
            return FilterNode.isNull(target, true);
        }
        if (filter instanceof IsNotNull) {
            return FilterNode.isNull(target, false);
        }
        if (filter instanceof EqualTo) {
            return FilterNode.compare(target, Comparison.EQ, ((EqualTo) filter).value(), false);
        }
        if (filter instanceof EqualNullSafe) {
            return FilterNode.compare(target, Comparison.EQ, ((EqualNullSafe) filter).value(), true);
        }
        if (filter instanceof LessThan) {
            return FilterNode.compare(target, Comparison.LT, ((LessThan) filter).value(), false);
        }
        if (filter instanceof LessThanOrEqual) {
            return FilterNode.compare(target, Comparison.LE, ((LessThanOrEqual) filter).value(), false);
        }
        if (filter instanceof GreaterThan) {
            return FilterNode.compare(target, Comparison.GT, ((GreaterThan) filter).value(), false);
        }
        if (filter instanceof GreaterThanOrEqual) {
            return FilterNode.compare(target, Comparison.GE, ((GreaterThanOrEqual) filter).value(), false);
        }
        if (filter instanceof In) {
            return FilterNode.in(target, ((In) filter).values());
        }
        if (filter instanceof StringStartsWith) {
            return FilterNode.startsWith(target, ((StringStartsWith) filter).value());
        }
        return FilterNode.constant(Outcomes.ANY);
    }

    // A V1 filter names a top-level column by its name; nested or quoted names (with dots) match nothing here.
    private static int columnIndex(String name, StructType schema, boolean caseSensitive)
    {
        StructField[] fields = schema.fields();
        int found = -1;
        for (int index = 0; index < fields.length; index++) {
            boolean same = caseSensitive ? fields[index].name().equals(name) : fields[index].name().equalsIgnoreCase(name);
            if (same) {
                if (found >= 0) {
                    return -1;
                }
                found = index;
            }
        }
        return found;
    }
}
