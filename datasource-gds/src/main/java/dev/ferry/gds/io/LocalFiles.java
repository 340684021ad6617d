package dev.ferry.gds.io;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import org.apache.hadoop.fs.Path;

import java.nio.file.Paths;

/** Where a listed file is on this machine: the data sources read local (or locally mounted) files. */
public final class LocalFiles
{
    private LocalFiles() {}

    /** The local path of a listed file (a Hadoop path); other schemes are refused naming the file. */
    public static java.nio.file.Path localPath(String hadoopPath)
    {
        Path path = new Path(hadoopPath);
        String scheme = path.toUri().getScheme();
        if (scheme != null && !scheme.equals("file")) {
            throw new FerryException(ErrorCategory.USER_ERROR,
                    "The gds data source reads local files (file:// or a mounted path); " + hadoopPath + " uses scheme " + scheme);
        }
        return Paths.get(path.toUri().getPath());
    }
}
