package dev.ferry.gds.decode;

import org.apache.arrow.vector.FieldVector;

/**
 * One node of a column's shape: a Spark field bound to the Parquet levels that say when it has a
 * slot and when that slot is non-null. Nodes are driven entry by entry from a leaf's definition and
 * repetition levels (the Dremel encoding) and write Arrow validity, offsets and values.
 *
 * <p>A node has a new slot at an entry when {@code repetitionLevel <= slotRepetition} and
 * {@code definitionLevel >= slotDefinition}; the slot is non-null when
 * {@code definitionLevel >= validDefinition}.
 */
abstract class ReadNode
{
    final String path;
    final int slotRepetition;
    final int slotDefinition;
    final int validDefinition;
    FieldVector vector;
    int count;

    ReadNode(String path, int slotRepetition, int slotDefinition, int validDefinition)
    {
        this.path = path;
        this.slotRepetition = slotRepetition;
        this.slotDefinition = slotDefinition;
        this.validDefinition = validDefinition;
    }

    /** Starts a batch writing into {@code target}, a freshly allocated vector of this node's type. */
    void bind(FieldVector target)
    {
        this.vector = target;
        this.count = 0;
    }

    /** Called for each entry of this node's owning leaf. */
    abstract void visit(int repetitionLevel, int definitionLevel);

    /** Writes the batch's validity and offsets into the vector and sets its value count; children first. */
    abstract void finish();
}
