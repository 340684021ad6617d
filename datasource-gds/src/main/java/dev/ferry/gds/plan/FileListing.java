package dev.ferry.gds.plan;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.gds.parquet.SourceFile;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.DataSource$;
import org.apache.spark.sql.execution.datasources.FileStatusCache$;
import org.apache.spark.sql.execution.datasources.FileStatusWithMetadata;
import org.apache.spark.sql.execution.datasources.InMemoryFileIndex;
import org.apache.spark.sql.execution.datasources.PartitionDirectory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The files of a scan and their partition values, listed with Spark's own file index so paths,
 * globs, hidden files, {@code basePath} and {@code key=value} partition inference behave exactly as
 * for {@code spark.read.parquet}.
 */
public final class FileListing
{
    private final List<SourceFile> files;
    private final StructType partitionSchema;

    private FileListing(List<SourceFile> files, StructType partitionSchema)
    {
        this.files = List.copyOf(files);
        this.partitionSchema = requireNonNull(partitionSchema, "partitionSchema is null");
    }

    public static FileListing list(SparkSession spark, CaseInsensitiveStringMap options, Option<StructType> userSchema)
    {
        List<String> paths = paths(options);
        if (paths.isEmpty()) {
            throw new FerryException(ErrorCategory.USER_ERROR, "The gds data source needs a path: spark.read.format(\"gds\").load(path)");
        }
        Configuration hadoopConf = spark.sessionState().newHadoopConfWithOptions(CollectionConverters.asScala(options.asCaseSensitiveMap()).toMap(scala.$less$colon$less$.MODULE$.refl()));
        scala.collection.immutable.Seq<Path> roots = DataSource$.MODULE$.checkAndGlobPathIfNecessary(
                CollectionConverters.asScala(paths).toList(), hadoopConf, true, true, DataSource$.MODULE$.checkAndGlobPathIfNecessary$default$5(), true);
        scala.collection.immutable.Map<String, String> scalaOptions = CollectionConverters.asScala(options.asCaseSensitiveMap()).toMap(scala.$less$colon$less$.MODULE$.refl());
        InMemoryFileIndex index = new InMemoryFileIndex(spark, roots, scalaOptions, userSchema, FileStatusCache$.MODULE$.getOrCreate(spark),
                Option.empty(), Option.empty());
        List<SourceFile> files = new ArrayList<>();
        for (PartitionDirectory directory : CollectionConverters.asJava(index.listFiles(
                scala.collection.immutable.List$.MODULE$.empty(), scala.collection.immutable.List$.MODULE$.empty()))) {
            for (FileStatusWithMetadata status : CollectionConverters.asJava(directory.files())) {
                FileStatus fileStatus = status.fileStatus();
                files.add(new SourceFile(fileStatus.getPath().toString(), fileStatus.getLen(), directory.values().copy(), hosts(fileStatus),
                        fileStatus.getModificationTime()));
            }
        }
        return new FileListing(files, index.partitionSchema());
    }

    public List<SourceFile> files()
    {
        return files;
    }

    public StructType partitionSchema()
    {
        return partitionSchema;
    }

    private static List<String> paths(CaseInsensitiveStringMap options)
    {
        Set<String> paths = new LinkedHashSet<>();
        String many = options.get("paths");
        if (many != null) {
            try {
                paths.addAll(new ObjectMapper().readValue(many, new TypeReference<List<String>>() {}));
            }
            catch (IOException e) {
                throw new FerryException(ErrorCategory.USER_ERROR, "Option paths is not a JSON array of strings: " + many, e);
            }
        }
        String one = options.get("path");
        if (one != null) {
            paths.add(one);
        }
        return List.copyOf(paths);
    }

    private static List<String> hosts(FileStatus status)
    {
        if (!(status instanceof LocatedFileStatus)) {
            return List.of();
        }
        Set<String> hosts = new LinkedHashSet<>();
        for (BlockLocation location : ((LocatedFileStatus) status).getBlockLocations()) {
            try {
                hosts.addAll(List.of(location.getHosts()));
            }
            catch (IOException e) {
                // Locations are a scheduling hint only.
                return List.copyOf(hosts);
            }
        }
        hosts.remove("localhost");
        return List.copyOf(hosts);
    }
}
