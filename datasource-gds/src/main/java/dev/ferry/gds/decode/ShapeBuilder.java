package dev.ferry.gds.decode;

import dev.ferry.gds.parquet.ColumnNames;
import dev.ferry.gds.parquet.UnsupportedParquetException;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Matches the requested Spark columns to a file's Parquet schema (by name, case-insensitively unless
 * Spark is case-sensitive) and derives each node's definition and repetition thresholds, following
 * the Parquet LIST and MAP rules and the legacy list layouts as Spark's schema converter does.
 */
public final class ShapeBuilder
{
    private final String file;
    private final boolean caseSensitive;
    private final DatetimeRules rules;

    public ShapeBuilder(String file, boolean caseSensitive, DatetimeRules rules)
    {
        this.file = requireNonNull(file, "file is null");
        this.caseSensitive = caseSensitive;
        this.rules = requireNonNull(rules, "rules is null");
    }

    public FileShape build(StructType readSchema, MessageType fileSchema)
    {
        List<ColumnChunkDecoder> columns = new ArrayList<>();
        List<Type> requested = new ArrayList<>();
        for (StructField field : readSchema.fields()) {
            Optional<Type> parquet = find(fileSchema, field.name());
            if (parquet.isEmpty()) {
                columns.add(new CpuColumnChunkDecoder(field, new MissingNode(field.name()), List.of(), Optional.empty()));
                continue;
            }
            Built built = walk(parquet.get(), parquet.get().getRepetition(), field.dataType(), field.name(), new String[0], new Levels(0, 0, 0));
            List<LeafNode> leaves = new ArrayList<>();
            assignOwners(built.node(), new ArrayList<>(), new ArrayList<>(), leaves);
            Optional<FlatLayout> flat = Optional.empty();
            if (built.node() instanceof LeafNode) {
                LeafNode leaf = (LeafNode) built.node();
                flat = leaf.pair.flatLayout(leaf.descriptor.getPrimitiveType(), leaf.sparkType, rules);
            }
            columns.add(new CpuColumnChunkDecoder(field, built.node(), leaves, flat));
            requested.add(built.pruned());
        }
        return new FileShape(columns, new MessageType(fileSchema.getName(), requested));
    }

    private Built walk(Type parquet, Type.Repetition repetition, DataType spark, String path, String[] parentPath, Levels levels)
    {
        String[] parquetPath = append(parentPath, parquet.getName());
        if (spark instanceof ArrayType && repetition == Type.Repetition.REPEATED) {
            return bareRepeated(parquet, (ArrayType) spark, path, parquetPath, levels);
        }
        if (repetition == Type.Repetition.REPEATED) {
            throw new UnsupportedParquetException(file, path, "repeated field " + parquet + " read as " + spark.simpleString());
        }
        boolean optional = repetition == Type.Repetition.OPTIONAL;
        int definition = levels.definition() + (optional ? 1 : 0);
        int validDefinition = optional ? definition : levels.slotDefinition();
        if (spark instanceof StructType) {
            if (parquet.isPrimitive()) {
                throw new UnsupportedParquetException(file, path, "primitive " + parquet + " read as " + spark.simpleString());
            }
            return struct(parquet.asGroupType(), (StructType) spark, path, parquetPath,
                    new Levels(definition, levels.repetition(), levels.slotDefinition()), levels, validDefinition);
        }
        if (spark instanceof ArrayType) {
            return list(parquet, (ArrayType) spark, path, parquetPath, levels, definition, validDefinition);
        }
        if (spark instanceof MapType) {
            return map(parquet, (MapType) spark, path, parquetPath, levels, definition, validDefinition);
        }
        if (!parquet.isPrimitive()) {
            throw new UnsupportedParquetException(file, path, "group " + parquet + " read as " + spark.simpleString());
        }
        PrimitiveType primitive = parquet.asPrimitiveType();
        ColumnDescriptor descriptor = new ColumnDescriptor(parquetPath, primitive, levels.repetition(), definition);
        ParquetSparkType pair = ParquetSparkType.resolve(primitive, spark, rules, file, path);
        ValueWriter writer = pair.writer(primitive, spark, rules, file, path);
        return new Built(new LeafNode(path, levels.repetition(), levels.slotDefinition(), descriptor, pair, spark, writer), parquet);
    }

    private Built struct(GroupType group, StructType spark, String path, String[] parquetPath, Levels childLevels, Levels levels, int validDefinition)
    {
        List<ReadNode> children = new ArrayList<>();
        List<Type> pruned = new ArrayList<>();
        for (StructField field : spark.fields()) {
            Optional<Type> child = find(group, field.name());
            String childPath = path + "." + field.name();
            if (child.isEmpty()) {
                children.add(new MissingNode(childPath));
                continue;
            }
            Built built = walk(child.get(), child.get().getRepetition(), field.dataType(), childPath, parquetPath, childLevels);
            children.add(built.node());
            pruned.add(built.pruned());
        }
        if (pruned.isEmpty()) {
            throw new UnsupportedParquetException(file, path, "none of the struct's requested fields is in the file, so its nulls cannot be told apart");
        }
        StructNode node = new StructNode(path, levels.repetition(), levels.slotDefinition(), validDefinition, children);
        return new Built(node, group.withNewFields(pruned));
    }

    private Built list(Type parquet, ArrayType spark, String path, String[] parquetPath, Levels levels, int definition, int validDefinition)
    {
        if (parquet.isPrimitive() || !(parquet.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation)) {
            throw new UnsupportedParquetException(file, path, parquet + " read as " + spark.simpleString() + ": not a LIST group");
        }
        GroupType group = parquet.asGroupType();
        if (group.getFieldCount() != 1 || !group.getType(0).isRepetition(Type.Repetition.REPEATED)) {
            throw new UnsupportedParquetException(file, path, "LIST group " + group + " does not hold exactly one repeated field");
        }
        Type repeated = group.getType(0);
        String[] repeatedPath = append(parquetPath, repeated.getName());
        Levels elementLevels = new Levels(definition + 1, levels.repetition() + 1, definition + 1);
        Built element;
        Type prunedRepeated;
        if (isElementType(repeated, group.getName())) {
            element = walk(repeated, Type.Repetition.REQUIRED, spark.elementType(), path + ".element", parquetPath, elementLevels);
            prunedRepeated = element.pruned();
        }
        else {
            GroupType wrapper = repeated.asGroupType();
            Type elementType = wrapper.getType(0);
            element = walk(elementType, elementType.getRepetition(), spark.elementType(), path + ".element", repeatedPath, elementLevels);
            prunedRepeated = wrapper.withNewFields(element.pruned());
        }
        ListNode node = new ListNode(path, levels.repetition(), levels.slotDefinition(), validDefinition,
                elementLevels.repetition(), elementLevels.definition(), element.node());
        return new Built(node, group.withNewFields(prunedRepeated));
    }

    private Built bareRepeated(Type parquet, ArrayType spark, String path, String[] parquetPath, Levels levels)
    {
        // A repeated field without a LIST group: a required list of required elements.
        Levels elementLevels = new Levels(levels.definition() + 1, levels.repetition() + 1, levels.definition() + 1);
        Built element = walk(parquet, Type.Repetition.REQUIRED, spark.elementType(), path + ".element", dropLast(parquetPath), elementLevels);
        ListNode node = new ListNode(path, levels.repetition(), levels.slotDefinition(), levels.slotDefinition(),
                elementLevels.repetition(), elementLevels.definition(), element.node());
        return new Built(node, element.pruned());
    }

    private Built map(Type parquet, MapType spark, String path, String[] parquetPath, Levels levels, int definition, int validDefinition)
    {
        LogicalTypeAnnotation annotation = parquet.getLogicalTypeAnnotation();
        if (parquet.isPrimitive() || !(annotation instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation
                || annotation instanceof LogicalTypeAnnotation.MapKeyValueTypeAnnotation)) {
            throw new UnsupportedParquetException(file, path, parquet + " read as " + spark.simpleString() + ": not a MAP group");
        }
        GroupType group = parquet.asGroupType();
        if (group.getFieldCount() != 1 || group.getType(0).isPrimitive() || !group.getType(0).isRepetition(Type.Repetition.REPEATED)
                || group.getType(0).asGroupType().getFieldCount() != 2) {
            throw new UnsupportedParquetException(file, path, "MAP group " + group + " does not hold one repeated key-value group of two fields");
        }
        GroupType keyValue = group.getType(0).asGroupType();
        String[] keyValuePath = append(parquetPath, keyValue.getName());
        Levels entryLevels = new Levels(definition + 1, levels.repetition() + 1, definition + 1);
        Built key = walk(keyValue.getType(0), keyValue.getType(0).getRepetition(), spark.keyType(), path + ".key", keyValuePath, entryLevels);
        Built value = walk(keyValue.getType(1), keyValue.getType(1).getRepetition(), spark.valueType(), path + ".value", keyValuePath, entryLevels);
        StructNode entries = new StructNode(path + ".entries", entryLevels.repetition(), entryLevels.definition(), entryLevels.definition(),
                List.of(key.node(), value.node()));
        ListNode node = new ListNode(path, levels.repetition(), levels.slotDefinition(), validDefinition,
                entryLevels.repetition(), entryLevels.definition(), entries);
        return new Built(node, group.withNewFields(keyValue.withNewFields(key.pruned(), value.pruned())));
    }

    // Spark's rule (ParquetToSparkSchemaConverter.isElementType) for the legacy two-level list layouts.
    private static boolean isElementType(Type repeated, String parentName)
    {
        return repeated.isPrimitive()
                || repeated.asGroupType().getFieldCount() > 1
                || repeated.getName().equals("array")
                || repeated.getName().equals(parentName + "_tuple");
    }

    private Optional<Type> find(GroupType group, String name)
    {
        for (Type field : group.getFields()) {
            if (field.getName().equals(name)) {
                return Optional.of(field);
            }
        }
        if (caseSensitive) {
            return Optional.empty();
        }
        List<Type> matches = new ArrayList<>();
        for (Type field : group.getFields()) {
            if (ColumnNames.sameName(field.getName(), name, false)) {
                matches.add(field);
            }
        }
        if (matches.size() > 1) {
            throw new UnsupportedParquetException(file, name, "several Parquet fields match case-insensitively: " + matches);
        }
        return matches.stream().findFirst();
    }

    // The first leaf under a node writes its shape; every leaf learns all its ancestors, to check its levels and its siblings.
    private static void assignOwners(ReadNode node, List<ReadNode> unowned, List<ReadNode> ancestors, List<LeafNode> leaves)
    {
        if (node instanceof LeafNode) {
            LeafNode leaf = (LeafNode) node;
            leaf.ownedAncestors.addAll(unowned);
            unowned.clear();
            leaf.setAncestors(List.copyOf(ancestors));
            leaves.add(leaf);
            return;
        }
        if (node instanceof MissingNode) {
            return;
        }
        unowned.add(node);
        ancestors.add(node);
        if (node instanceof StructNode) {
            for (ReadNode child : ((StructNode) node).children) {
                if (child instanceof MissingNode) {
                    ((MissingNode) child).setParent(node);
                }
                assignOwners(child, unowned, ancestors, leaves);
            }
        }
        else if (node instanceof ListNode) {
            assignOwners(((ListNode) node).element, unowned, ancestors, leaves);
        }
        ancestors.remove(ancestors.size() - 1);
    }

    private static String[] append(String[] path, String name)
    {
        String[] result = new String[path.length + 1];
        System.arraycopy(path, 0, result, 0, path.length);
        result[path.length] = name;
        return result;
    }

    private static String[] dropLast(String[] path)
    {
        String[] result = new String[path.length - 1];
        System.arraycopy(path, 0, result, 0, result.length);
        return result;
    }

    /** Levels of the enclosing node: its definition level, repetition level, and the definition level at which its slots exist. */
    private record Levels(int definition, int repetition, int slotDefinition) {}

    private record Built(ReadNode node, Type pruned) {}
}
