package dev.ferry.gds.decode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Checks that a leaf agrees with the sibling that wrote the shape of their common ancestors: the
 * first leaf under a struct, list or map writes its validity and offsets ({@link LeafNode#ownedAncestors}),
 * and every later leaf under it must imply the same slots, the same nulls and (for a list or map)
 * the same element counts, entry by entry, and the same totals at the end of the batch. A leaf
 * whose levels were damaged would otherwise be zipped with its siblings' values, moving them
 * between rows. The owner is always read first in a batch, so its shape is complete when a later
 * leaf is checked against it.
 */
final class SiblingShapeCheck
{
    private final String path;
    private final ReadNode[] nodes;
    private final ListNode[] lists;
    private final StructNode[] structs;
    private final int[] slots;
    private final int[] elements;

    SiblingShapeCheck(String path, List<ReadNode> ancestors, List<ReadNode> owned)
    {
        this.path = path;
        List<ReadNode> shared = new ArrayList<>(ancestors);
        shared.removeAll(owned);
        this.nodes = shared.toArray(new ReadNode[0]);
        this.lists = new ListNode[nodes.length];
        this.structs = new StructNode[nodes.length];
        for (int index = 0; index < nodes.length; index++) {
            if (nodes[index] instanceof ListNode list) {
                lists[index] = list;
            }
            else if (nodes[index] instanceof StructNode struct) {
                structs[index] = struct;
            }
            else {
                throw new IllegalStateException("ancestor " + nodes[index].path + " of " + path + " is neither a struct nor a list");
            }
        }
        this.slots = new int[nodes.length];
        this.elements = new int[nodes.length];
    }

    boolean isEmpty()
    {
        return nodes.length == 0;
    }

    /** Starts a batch. */
    void reset()
    {
        Arrays.fill(slots, 0);
        Arrays.fill(elements, 0);
    }

    void visit(int repetitionLevel, int definitionLevel)
    {
        for (int index = 0; index < nodes.length; index++) {
            ReadNode node = nodes[index];
            ListNode list = lists[index];
            if (repetitionLevel <= node.slotRepetition && definitionLevel >= node.slotDefinition) {
                int slot = slots[index]++;
                boolean valid = definitionLevel >= node.validDefinition;
                if (slot >= node.count) {
                    throw disagree(node, "has more than the " + node.count + " entries");
                }
                if ((list != null ? list.validAt(slot) : structs[index].validAt(slot)) != valid) {
                    throw disagree(node, "has " + (valid ? "a value" : "a null") + " at entry " + slot + " where it has " + (valid ? "a null" : "a value"));
                }
                if (list != null && list.startAt(slot) != elements[index]) {
                    throw disagree(node, "has entry " + slot + " start at element " + elements[index] + " where it starts at " + list.startAt(slot));
                }
            }
            if (list != null && repetitionLevel <= list.elementRepetition && definitionLevel >= list.elementDefinition) {
                elements[index]++;
            }
        }
    }

    /** Ends a batch: the leaf must have seen all of each shared ancestor's entries and elements. */
    void finish()
    {
        for (int index = 0; index < nodes.length; index++) {
            ReadNode node = nodes[index];
            if (slots[index] != node.count) {
                throw disagree(node, "has " + slots[index] + " of the " + node.count + " entries");
            }
            if (lists[index] != null && elements[index] != lists[index].elementCount()) {
                throw disagree(node, "has " + elements[index] + " of the " + lists[index].elementCount() + " elements");
            }
        }
    }

    private IllegalStateException disagree(ReadNode node, String detail)
    {
        return new IllegalStateException("column " + path + " disagrees with its sibling columns on the shape of " + node.path + ": it " + detail
                + " they wrote");
    }
}
