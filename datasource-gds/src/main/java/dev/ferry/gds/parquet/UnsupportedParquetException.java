package dev.ferry.gds.parquet;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

/** A valid file with something the gds reader cannot decode yet: refused, never guessed. */
public class UnsupportedParquetException
        extends FerryException
{
    public UnsupportedParquetException(String file, String column, String detail)
    {
        super(ErrorCategory.USER_ERROR, "The gds reader cannot read column " + column + " of " + file + ": " + detail);
    }
}
