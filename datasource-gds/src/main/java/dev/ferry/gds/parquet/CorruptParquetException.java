package dev.ferry.gds.parquet;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

/** A file that is not valid Parquet, or is cut short; the message names the file and, where known, column and offset. */
public class CorruptParquetException
        extends FerryException
{
    public CorruptParquetException(String file, String detail)
    {
        super(ErrorCategory.USER_ERROR, "Malformed Parquet file " + file + ": " + detail);
    }

    public CorruptParquetException(String file, String detail, Throwable cause)
    {
        super(ErrorCategory.USER_ERROR, "Malformed Parquet file " + file + ": " + detail, cause);
    }
}
