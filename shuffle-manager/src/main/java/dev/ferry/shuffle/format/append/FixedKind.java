package dev.ferry.shuffle.format.append;

/** The fixed-width value layouts {@link FixedWidthAppender} writes, with their width in bytes (booleans are bits). */
enum FixedKind
{
    BOOLEAN(0), BYTE(1), SHORT(2), INT(4), LONG(8), FLOAT(4), DOUBLE(8), DECIMAL64(16), DECIMAL128(16);

    private final int width;

    FixedKind(int width)
    {
        this.width = width;
    }

    int width()
    {
        return width;
    }
}
