package dev.ferry.gds.decode;

import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.spark.sql.types.DataType;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/** A Parquet column (a primitive leaf): reads its entries and drives the ancestors it owns. */
final class LeafNode
        extends ReadNode
{
    final ColumnDescriptor descriptor;
    // The leaf's Parquet and Spark type pair, from which both its writer and its flat layout come.
    final ParquetSparkType pair;
    final DataType sparkType;
    final ValueWriter writer;
    // Ancestors whose validity and offsets this leaf writes: those for which it is the first leaf, outermost first.
    final List<ReadNode> ownedAncestors = new ArrayList<>();
    private LevelsValidator levels;
    private SiblingShapeCheck siblings;

    LeafNode(String path, int slotRepetition, int slotDefinition, ColumnDescriptor descriptor, ParquetSparkType pair, DataType sparkType, ValueWriter writer)
    {
        super(path, slotRepetition, slotDefinition, descriptor.getMaxDefinitionLevel());
        this.descriptor = requireNonNull(descriptor, "descriptor is null");
        this.pair = requireNonNull(pair, "pair is null");
        this.sparkType = requireNonNull(sparkType, "sparkType is null");
        this.writer = requireNonNull(writer, "writer is null");
    }

    /** Called once the shape is built: {@code ancestors} are all of this leaf's, outermost first. */
    void setAncestors(List<ReadNode> ancestors)
    {
        levels = new LevelsValidator(path, descriptor.getMaxRepetitionLevel(), descriptor.getMaxDefinitionLevel(), ancestors);
        siblings = new SiblingShapeCheck(path, ancestors, ownedAncestors);
    }

    @Override
    void bind(FieldVector target)
    {
        super.bind(target);
        writer.bind(target);
        siblings.reset();
    }

    @Override
    void visit(int repetitionLevel, int definitionLevel)
    {
        throw new IllegalStateException("Leaves are driven by read()");
    }

    /**
     * Reads entries for {@code rows} rows (or until the column chunk ends), returning the rows read.
     * {@code consumed} holds how many entries of the chunk were consumed before; it is advanced.
     */
    @SuppressWarnings("deprecation") // getTotalValueCount: the count of this chunk, which is what is needed here
    int read(ColumnReader reader, int rows, long[] consumed)
    {
        long total = reader.getTotalValueCount();
        int maxDefinition = descriptor.getMaxDefinitionLevel();
        int ancestors = ownedAncestors.size();
        int rowsRead = 0;
        boolean checkSiblings = !siblings.isEmpty();
        while (consumed[0] < total) {
            int repetitionLevel = reader.getCurrentRepetitionLevel();
            if (consumed[0] == 0 && repetitionLevel != 0) {
                // A row starts at repetition level 0; a chunk starting elsewhere would shift every row.
                throw new IllegalStateException("the first value of the column chunk has repetition level " + repetitionLevel + ", not 0");
            }
            if (repetitionLevel == 0) {
                if (rowsRead == rows) {
                    break;
                }
                rowsRead++;
            }
            int definitionLevel = reader.getCurrentDefinitionLevel();
            levels.check(repetitionLevel, definitionLevel);
            if (checkSiblings) {
                siblings.visit(repetitionLevel, definitionLevel);
            }
            for (int index = 0; index < ancestors; index++) {
                ownedAncestors.get(index).visit(repetitionLevel, definitionLevel);
            }
            if (repetitionLevel <= slotRepetition && definitionLevel >= slotDefinition) {
                if (definitionLevel == maxDefinition) {
                    writer.write(reader, count);
                }
                count++;
            }
            reader.consume();
            consumed[0]++;
        }
        if (checkSiblings) {
            siblings.finish();
        }
        return rowsRead;
    }

    @Override
    void finish()
    {
        vector.setValueCount(count);
    }
}
