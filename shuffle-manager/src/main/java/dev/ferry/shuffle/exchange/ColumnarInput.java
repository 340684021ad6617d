package dev.ferry.shuffle.exchange;

import java.io.Serializable;

import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;
import scala.reflect.ClassTag;
import scala.runtime.AbstractFunction1;
import scala.reflect.ClassTag$;

/**
 * A columnar child's batches as the exchange's input rows. The rows are views into the batch (no
 * conversion, no copy): the map side reads each value once, straight from the child's vectors,
 * while writing it into Arrow. Only when rows must be sorted first (round robin) are they made
 * into UnsafeRows.
 */
final class ColumnarInput
{
    private static final ClassTag<InternalRow> ROW = ClassTag$.MODULE$.apply(InternalRow.class);

    private ColumnarInput() {}

    static RDD<InternalRow> rows(RDD<ColumnarBatch> batches, StructType schema, boolean unsafe)
    {
        return batches.mapPartitionsInternal(new ToRows(schema, unsafe), false, ROW);
    }

    /** A named, serializable function: Java lambdas are not serializable as Scala functions. */
    private static final class ToRows
            extends AbstractFunction1<Iterator<ColumnarBatch>, Iterator<InternalRow>>
            implements Serializable
    {
        private static final long serialVersionUID = 1L;

        private final StructType schema;
        private final boolean unsafe;

        ToRows(StructType schema, boolean unsafe)
        {
            this.schema = schema;
            this.unsafe = unsafe;
        }

        @Override
        public Iterator<InternalRow> apply(Iterator<ColumnarBatch> batches)
        {
            Iterator<InternalRow> rows = new BatchRows(batches);
            if (!unsafe) {
                return rows;
            }
            UnsafeProjection projection = UnsafeProjection.create(schema);
            return rows.map(projection::apply);
        }
    }

    private static final class BatchRows
            extends AbstractIterator<InternalRow>
    {
        private final Iterator<ColumnarBatch> batches;
        private java.util.Iterator<InternalRow> rows = java.util.Collections.emptyIterator();

        BatchRows(Iterator<ColumnarBatch> batches)
        {
            this.batches = batches;
        }

        @Override
        public boolean hasNext()
        {
            while (!rows.hasNext()) {
                if (!batches.hasNext()) {
                    return false;
                }
                rows = batches.next().rowIterator();
            }
            return true;
        }

        @Override
        public InternalRow next()
        {
            if (!hasNext()) {
                throw new java.util.NoSuchElementException();
            }
            return rows.next();
        }
    }
}
