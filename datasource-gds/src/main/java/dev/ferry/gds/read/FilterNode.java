package dev.ferry.gds.read;

import org.apache.arrow.vector.FieldVector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** One compiled filter of a {@link RowFilter}: writes each row's possible {@link Outcomes} for a batch. */
abstract class FilterNode
{
    private static final Logger log = LoggerFactory.getLogger(FilterNode.class);

    /** Writes the outcomes of rows 0..rows-1 of {@code columns} into {@code out}. */
    abstract void evaluate(List<FieldVector> columns, int rows, byte[] out);

    /** Whether every row may be true whatever the batch holds, so this filter can never drop a row. */
    abstract boolean opaque();

    /**
     * Whether every row's outcome is one definite SQL value (never "may be anything"), so the rows kept
     * are exactly those the filter is true on and Spark need not evaluate it again.
     */
    abstract boolean exact();

    static FilterNode constant(byte outcomes)
    {
        return new Constant(outcomes);
    }

    static FilterNode and(FilterNode left, FilterNode right)
    {
        return new Logical(left, right, true);
    }

    static FilterNode or(FilterNode left, FilterNode right)
    {
        return new Logical(left, right, false);
    }

    static FilterNode not(FilterNode child)
    {
        return new Negation(child);
    }

    static FilterNode isNull(ColumnValues values, boolean wantNull)
    {
        return new NullTest(values, wantNull);
    }

    /** {@code value op literal}; {@code nullSafe} is {@code <=>} (null rows are false, a null literal tests for null). */
    static FilterNode compare(ColumnValues values, Comparison op, Object literal, boolean nullSafe)
    {
        if (literal == null) {
            // x = NULL is NULL for every row; x <=> NULL is x IS NULL.
            return nullSafe ? new NullTest(values, true) : new Constant(Outcomes.NULL);
        }
        Optional<Object> converted = values.literal(literal);
        if (converted.isEmpty()) {
            return new Constant(Outcomes.ANY);
        }
        return new Compare(values, op, converted.get(), nullSafe ? Outcomes.FALSE : Outcomes.NULL);
    }

    static FilterNode in(ColumnValues values, Object[] literals)
    {
        if (literals.length == 0) {
            // Spark's answer for an empty list depends on a legacy setting: leave it to Spark.
            return new Constant(Outcomes.ANY);
        }
        Object[] converted = new Object[literals.length];
        int count = 0;
        boolean hasNull = false;
        for (Object literal : literals) {
            if (literal == null) {
                hasNull = true;
                continue;
            }
            Optional<Object> value = values.literal(literal);
            if (value.isEmpty()) {
                return new Constant(Outcomes.ANY);
            }
            converted[count++] = value.get();
        }
        return new InList(values, Arrays.copyOf(converted, count), hasNull);
    }

    static FilterNode startsWith(ColumnValues values, String prefix)
    {
        if (!ColumnValues.isUtf8(values) || prefix == null) {
            return new Constant(Outcomes.ANY);
        }
        return new Prefix(values, prefix.getBytes(StandardCharsets.UTF_8));
    }

    // A batch whose column is not the vector the type decodes to (not expected): every row is kept, and the
    // mismatch is logged rather than guessed at; where Spark was told the filter is exact (it does not
    // evaluate it again), keeping rows would return wrong rows, so the read fails instead.
    private static boolean usable(ColumnValues values, FieldVector vector, int rows, byte[] out)
    {
        if (values.accepts(vector)) {
            return true;
        }
        if (values.exactRequired) {
            throw new IllegalStateException("Cannot evaluate an exact pushed filter on column " + values.column + ": it decoded to "
                    + vector.getClass().getSimpleName() + ", not the vector its type reads");
        }
        if (!values.mismatchLogged) {
            values.mismatchLogged = true;
            log.warn("Not filtering rows on column {}: it decoded to {}, not the vector its type reads", values.column, vector.getClass().getSimpleName());
        }
        Arrays.fill(out, 0, rows, Outcomes.ANY);
        return false;
    }

    private static final class Constant
            extends FilterNode
    {
        private final byte outcomes;

        Constant(byte outcomes)
        {
            this.outcomes = outcomes;
        }

        @Override
        void evaluate(List<FieldVector> columns, int rows, byte[] out)
        {
            Arrays.fill(out, 0, rows, outcomes);
        }

        @Override
        boolean opaque()
        {
            return (outcomes & Outcomes.TRUE) != 0;
        }

        @Override
        boolean exact()
        {
            return outcomes == Outcomes.TRUE || outcomes == Outcomes.FALSE || outcomes == Outcomes.NULL;
        }
    }

    private static final class Logical
            extends FilterNode
    {
        private final FilterNode left;
        private final FilterNode right;
        private final boolean and;
        private byte[] scratch = new byte[0];

        Logical(FilterNode left, FilterNode right, boolean and)
        {
            this.left = requireNonNull(left, "left is null");
            this.right = requireNonNull(right, "right is null");
            this.and = and;
        }

        @Override
        void evaluate(List<FieldVector> columns, int rows, byte[] out)
        {
            if (scratch.length < rows) {
                scratch = new byte[rows];
            }
            left.evaluate(columns, rows, out);
            right.evaluate(columns, rows, scratch);
            for (int row = 0; row < rows; row++) {
                out[row] = and ? Outcomes.and(out[row], scratch[row]) : Outcomes.or(out[row], scratch[row]);
            }
        }

        @Override
        boolean opaque()
        {
            // x OR (may be true) may be true; x AND y may be true for sure only when both may be.
            return and ? left.opaque() && right.opaque() : left.opaque() || right.opaque();
        }

        @Override
        boolean exact()
        {
            return left.exact() && right.exact();
        }
    }

    private static final class Negation
            extends FilterNode
    {
        private final FilterNode child;

        Negation(FilterNode child)
        {
            this.child = requireNonNull(child, "child is null");
        }

        @Override
        void evaluate(List<FieldVector> columns, int rows, byte[] out)
        {
            child.evaluate(columns, rows, out);
            for (int row = 0; row < rows; row++) {
                out[row] = Outcomes.not(out[row]);
            }
        }

        @Override
        boolean opaque()
        {
            // Only an unknown child is certainly "may be true" negated; a constant TRUE child negates to FALSE.
            return child instanceof Constant ? (Outcomes.not(((Constant) child).outcomes) & Outcomes.TRUE) != 0 : false;
        }

        @Override
        boolean exact()
        {
            return child.exact();
        }
    }

    private static final class NullTest
            extends FilterNode
    {
        private final ColumnValues values;
        private final boolean wantNull;

        NullTest(ColumnValues values, boolean wantNull)
        {
            this.values = values;
            this.wantNull = wantNull;
        }

        @Override
        void evaluate(List<FieldVector> columns, int rows, byte[] out)
        {
            FieldVector vector = columns.get(values.column);
            if (!usable(values, vector, rows, out)) {
                return;
            }
            for (int row = 0; row < rows; row++) {
                out[row] = ColumnValues.isNull(vector, row) == wantNull ? Outcomes.TRUE : Outcomes.FALSE;
            }
        }

        @Override
        boolean opaque()
        {
            return false;
        }

        @Override
        boolean exact()
        {
            return true;
        }
    }

    private static final class Compare
            extends FilterNode
    {
        private final ColumnValues values;
        private final Comparison op;
        private final Object literal;
        private final byte nullOutcome;

        Compare(ColumnValues values, Comparison op, Object literal, byte nullOutcome)
        {
            this.values = values;
            this.op = op;
            this.literal = literal;
            this.nullOutcome = nullOutcome;
        }

        @Override
        void evaluate(List<FieldVector> columns, int rows, byte[] out)
        {
            FieldVector vector = columns.get(values.column);
            if (usable(values, vector, rows, out)) {
                values.compareRows(vector, rows, literal, op, nullOutcome, out);
            }
        }

        @Override
        boolean opaque()
        {
            return false;
        }

        @Override
        boolean exact()
        {
            return true;
        }
    }

    private static final class InList
            extends FilterNode
    {
        private final ColumnValues values;
        private final Object[] literals;
        private final boolean hasNull;

        InList(ColumnValues values, Object[] literals, boolean hasNull)
        {
            this.values = values;
            this.literals = literals;
            this.hasNull = hasNull;
        }

        @Override
        void evaluate(List<FieldVector> columns, int rows, byte[] out)
        {
            FieldVector vector = columns.get(values.column);
            if (!usable(values, vector, rows, out)) {
                return;
            }
            // SQL: a null value is NULL; no match is NULL when the list holds a null, else FALSE.
            byte noMatch = hasNull ? Outcomes.NULL : Outcomes.FALSE;
            for (int row = 0; row < rows; row++) {
                if (ColumnValues.isNull(vector, row)) {
                    out[row] = Outcomes.NULL;
                    continue;
                }
                byte outcome = noMatch;
                for (Object literal : literals) {
                    if (values.compare(vector, row, literal) == 0) {
                        outcome = Outcomes.TRUE;
                        break;
                    }
                }
                out[row] = outcome;
            }
        }

        @Override
        boolean opaque()
        {
            return false;
        }

        @Override
        boolean exact()
        {
            return true;
        }
    }

    private static final class Prefix
            extends FilterNode
    {
        private final ColumnValues values;
        private final byte[] prefix;

        Prefix(ColumnValues values, byte[] prefix)
        {
            this.values = values;
            this.prefix = prefix;
        }

        @Override
        void evaluate(List<FieldVector> columns, int rows, byte[] out)
        {
            FieldVector vector = columns.get(values.column);
            if (!usable(values, vector, rows, out)) {
                return;
            }
            for (int row = 0; row < rows; row++) {
                out[row] = ColumnValues.isNull(vector, row) ? Outcomes.NULL
                        : ColumnValues.startsWith(values, vector, row, prefix) ? Outcomes.TRUE : Outcomes.FALSE;
            }
        }

        @Override
        boolean opaque()
        {
            return false;
        }

        @Override
        boolean exact()
        {
            return true;
        }
    }
}
