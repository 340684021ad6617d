package dev.ferry.gds.decode;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.ListVector;

/**
 * A Spark array or map over a Parquet repeated group: its elements (map entries) have a slot at
 * each entry with {@code repetitionLevel <= elementRepetition} and
 * {@code definitionLevel >= elementDefinition}.
 */
final class ListNode
        extends ReadNode
{
    final int elementRepetition;
    final int elementDefinition;
    final ReadNode element;
    private final LevelBuffer validity = new LevelBuffer();
    private final LevelBuffer starts = new LevelBuffer();
    private int elements;

    ListNode(String path, int slotRepetition, int slotDefinition, int validDefinition, int elementRepetition, int elementDefinition, ReadNode element)
    {
        super(path, slotRepetition, slotDefinition, validDefinition);
        this.elementRepetition = elementRepetition;
        this.elementDefinition = elementDefinition;
        this.element = element;
    }

    @Override
    void bind(FieldVector target)
    {
        super.bind(target);
        validity.clear();
        starts.clear();
        elements = 0;
        element.bind(((ListVector) target).getDataVector());
    }

    @Override
    void visit(int repetitionLevel, int definitionLevel)
    {
        if (repetitionLevel <= slotRepetition && definitionLevel >= slotDefinition) {
            validity.add(definitionLevel >= validDefinition ? 1 : 0);
            starts.add(elements);
            count++;
        }
        if (repetitionLevel <= elementRepetition && definitionLevel >= elementDefinition) {
            elements++;
        }
    }

    /** Whether entry {@code slot} of this batch is non-null, as its owning leaf wrote it. */
    boolean validAt(int slot)
    {
        return validity.get(slot) != 0;
    }

    /** The element at which entry {@code slot} of this batch starts. */
    int startAt(int slot)
    {
        return starts.get(slot);
    }

    /** Elements of this batch so far. */
    int elementCount()
    {
        return elements;
    }

    @Override
    void finish()
    {
        element.finish();
        ListVector list = (ListVector) vector;
        for (int index = 0; index < count; index++) {
            int end = index + 1 < count ? starts.get(index + 1) : elements;
            if (validity.get(index) != 0) {
                list.startNewValue(index);
                list.endValue(index, end - starts.get(index));
            }
            else {
                list.setNull(index);
            }
        }
        list.setValueCount(count);
    }
}
