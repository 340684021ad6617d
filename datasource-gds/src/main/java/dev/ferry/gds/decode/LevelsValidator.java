package dev.ferry.gds.decode;

import java.util.List;

/**
 * Checks one nested leaf's (repetition, definition) pairs as they are read: each level within its
 * maximum, and a repetition level r > 0 (the next element of the repeated ancestor at depth r) only
 * where that ancestor is present and non-empty, in this entry and in the one before it. parquet-mr's
 * column reader returns whatever levels the runs hold, and assembling rows from impossible ones moves
 * values between rows; Spark's readers fail on them.
 */
final class LevelsValidator
{
    private final String path;
    private final int maxRepetition;
    private final int maxDefinition;
    // elementDefinition[r]: the definition level at which the repeated ancestor of depth r has an element.
    private final int[] elementDefinition;
    private int previousDefinition;

    LevelsValidator(String path, int maxRepetition, int maxDefinition, List<ReadNode> ancestors)
    {
        this.path = path;
        this.maxRepetition = maxRepetition;
        this.maxDefinition = maxDefinition;
        this.elementDefinition = new int[maxRepetition + 1];
        int depths = 0;
        for (ReadNode ancestor : ancestors) {
            if (ancestor instanceof ListNode list && list.elementRepetition <= maxRepetition) {
                elementDefinition[list.elementRepetition] = list.elementDefinition;
                depths++;
            }
        }
        if (depths != maxRepetition) {
            throw new IllegalStateException("column " + path + " repeats " + maxRepetition + " times but is read through " + depths + " lists");
        }
    }

    /** Checks the next entry; the first entry of a chunk or batch is a row's first (repetition level 0, checked by the reader). */
    void check(int repetitionLevel, int definitionLevel)
    {
        if (Integer.compareUnsigned(repetitionLevel, maxRepetition) > 0) {
            throw new IllegalStateException("repetition level " + repetitionLevel + " above the maximum " + maxRepetition + " in column " + path);
        }
        if (Integer.compareUnsigned(definitionLevel, maxDefinition) > 0) {
            throw new IllegalStateException("definition level " + definitionLevel + " above the maximum " + maxDefinition + " in column " + path);
        }
        if (repetitionLevel > 0) {
            int needed = elementDefinition[repetitionLevel];
            if (definitionLevel < needed || previousDefinition < needed) {
                throw new IllegalStateException("repetition level " + repetitionLevel + " continues a list that is " + (previousDefinition < needed
                        ? "null or empty (previous definition level " + previousDefinition + ")"
                        : "not there (definition level " + definitionLevel + ")") + ", below " + needed + ", in column " + path);
            }
        }
        previousDefinition = definitionLevel;
    }
}
