package dev.ferry.gds.decode;

/**
 * A field the file does not have (the schema was merged from several files or given by the user):
 * null in every slot of its parent, as in {@code spark.read.parquet}.
 */
final class MissingNode
        extends ReadNode
{
    private ReadNode parent;

    MissingNode(String path)
    {
        super(path, 0, 0, 0);
    }

    void setParent(ReadNode parent)
    {
        this.parent = parent;
    }

    @Override
    void visit(int repetitionLevel, int definitionLevel)
    {
        throw new IllegalStateException("A missing field has no levels: " + path);
    }

    /** For a missing top-level column, which has no parent to take its length from. */
    void setRows(int rows)
    {
        this.count = rows;
    }

    @Override
    void finish()
    {
        // A fresh vector is all null; its value count alone makes it that long.
        vector.setValueCount(parent == null ? count : parent.count);
    }
}
