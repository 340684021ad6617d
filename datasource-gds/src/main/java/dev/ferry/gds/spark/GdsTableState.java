package dev.ferry.gds.spark;

import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.io.BoundedCodecFactory;
import dev.ferry.gds.parquet.ColumnNames;
import dev.ferry.gds.plan.FileListing;
import dev.ferry.gds.plan.FooterCollector;
import dev.ferry.gds.plan.PlannedFile;
import dev.ferry.gds.plan.SchemaInference;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/** A table as the driver knows it: options, settings, files, footers and schemas. */
final class GdsTableState
{
    private final CaseInsensitiveStringMap options;
    private final SparkSession spark;
    private final GdsReadSettings settings;
    private final Configuration hadoopConf;
    private final List<PlannedFile> files;
    private final StructType partitionSchema;
    private final StructType tableSchema;

    private GdsTableState(CaseInsensitiveStringMap options, SparkSession spark, GdsReadSettings settings, Configuration hadoopConf,
            List<PlannedFile> files, StructType partitionSchema, StructType tableSchema)
    {
        this.options = requireNonNull(options, "options is null");
        this.spark = requireNonNull(spark, "spark is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.hadoopConf = requireNonNull(hadoopConf, "hadoopConf is null");
        this.files = List.copyOf(files);
        this.partitionSchema = requireNonNull(partitionSchema, "partitionSchema is null");
        this.tableSchema = requireNonNull(tableSchema, "tableSchema is null");
    }

    static GdsTableState load(SparkSession spark, CaseInsensitiveStringMap options, Option<StructType> userSchema)
    {
        SQLConf conf = spark.sessionState().conf();
        boolean ignoreCorrupt = options.containsKey("ignoreCorruptFiles") ? options.getBoolean("ignoreCorruptFiles", false) : conf.ignoreCorruptFiles();
        boolean ignoreMissing = options.containsKey("ignoreMissingFiles") ? options.getBoolean("ignoreMissingFiles", false) : conf.ignoreMissingFiles();
        GdsReadSettings settings = GdsReadSettings.resolve(new ReadConfigSource(options, spark), conf, ignoreCorrupt, ignoreMissing);
        Configuration hadoopConf = spark.sessionState().newHadoopConfWithOptions(
                CollectionConverters.asScala(options.asCaseSensitiveMap()).toMap(scala.$less$colon$less$.MODULE$.refl()));
        FileListing listing = FileListing.list(spark, options, userSchema);
        List<PlannedFile> files = FooterCollector.collect(listing.files(), settings, readOptions(hadoopConf, settings));
        StructType tableSchema = userSchema.isDefined()
                ? userSchema.get()
                : SchemaInference.tableSchema(SchemaInference.dataSchema(files, conf, describePaths(options)), listing.partitionSchema(), settings.caseSensitive());
        return new GdsTableState(options, spark, settings, hadoopConf, files, listing.partitionSchema(), tableSchema);
    }

    private static String describePaths(CaseInsensitiveStringMap options)
    {
        String path = options.get("path");
        return path != null ? path : options.getOrDefault("paths", "(no path)");
    }

    static ParquetReadOptions readOptions(Configuration hadoopConf, GdsReadSettings settings)
    {
        ParquetReadOptions defaults = HadoopReadOptions.builder(hadoopConf).build();
        return HadoopReadOptions.builder(hadoopConf)
                .withCodecFactory(new BoundedCodecFactory(defaults.getCodecFactory(), settings.maxPageBytes()))
                .build();
    }

    GdsTableState withSchema(StructType schema)
    {
        return new GdsTableState(options, spark, settings, hadoopConf, files, partitionSchema, schema);
    }

    CaseInsensitiveStringMap options()
    {
        return options;
    }

    SparkSession spark()
    {
        return spark;
    }

    GdsReadSettings settings()
    {
        return settings;
    }

    Configuration hadoopConf()
    {
        return hadoopConf;
    }

    List<PlannedFile> files()
    {
        return files;
    }

    StructType tableSchema()
    {
        return tableSchema;
    }

    /** The partition columns, with the table's types for them (a user schema may retype them). */
    StructType partitionSchema()
    {
        List<StructField> fields = new ArrayList<>();
        for (StructField partition : partitionSchema.fields()) {
            StructField field = partition;
            for (StructField candidate : tableSchema.fields()) {
                if (ColumnNames.sameName(candidate.name(), partition.name(), settings.caseSensitive())) {
                    field = candidate;
                }
            }
            fields.add(field);
        }
        return new StructType(fields.toArray(new StructField[0]));
    }

    String name()
    {
        return "gds " + describePaths(options);
    }
}
