package dev.ferry.gds.decode;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.StructVector;

import java.util.List;

/** A Spark struct over a Parquet group (or a repeated group that is a list's element). */
final class StructNode
        extends ReadNode
{
    final List<ReadNode> children;
    private final LevelBuffer validity = new LevelBuffer();

    StructNode(String path, int slotRepetition, int slotDefinition, int validDefinition, List<ReadNode> children)
    {
        super(path, slotRepetition, slotDefinition, validDefinition);
        this.children = List.copyOf(children);
    }

    @Override
    void bind(FieldVector target)
    {
        super.bind(target);
        validity.clear();
        StructVector struct = (StructVector) target;
        for (int index = 0; index < children.size(); index++) {
            children.get(index).bind((FieldVector) struct.getChildByOrdinal(index));
        }
    }

    @Override
    void visit(int repetitionLevel, int definitionLevel)
    {
        if (repetitionLevel <= slotRepetition && definitionLevel >= slotDefinition) {
            validity.add(definitionLevel >= validDefinition ? 1 : 0);
            count++;
        }
    }

    /** Whether entry {@code slot} of this batch is non-null, as its owning leaf wrote it. */
    boolean validAt(int slot)
    {
        return validity.get(slot) != 0;
    }

    @Override
    void finish()
    {
        for (ReadNode child : children) {
            child.finish();
        }
        StructVector struct = (StructVector) vector;
        for (int index = 0; index < count; index++) {
            if (validity.get(index) != 0) {
                struct.setIndexDefined(index);
            }
            else {
                struct.setNull(index);
            }
        }
        struct.setValueCount(count);
    }
}
