package dev.ferry.topology.file;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * A JSON value together with its path ({@code $.nodes[0].gpus[2]}) and file, so every loading error
 * says exactly where it is. Unknown fields are errors too: a misspelt fact must not be silently ignored.
 */
final class JsonCursor
{
    private final String file;
    private final String path;
    private final JsonNode node;

    JsonCursor(String file, String path, JsonNode node)
    {
        this.file = requireNonNull(file, "file is null");
        this.path = requireNonNull(path, "path is null");
        this.node = requireNonNull(node, "node is null");
    }

    String path()
    {
        return path;
    }

    String file()
    {
        return file;
    }

    JsonCursor object()
    {
        if (!node.isObject()) {
            throw error("expected an object, got " + describe(node));
        }
        return this;
    }

    /** Fails on any field not in {@code allowed}. */
    JsonCursor allowOnly(Set<String> allowed)
    {
        object();
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw new FerryException(ErrorCategory.USER_ERROR, prefix() + path + "." + name
                        + ": unknown field (allowed here: " + String.join(", ", allowed.stream().sorted().toList()) + ")");
            }
        }
        return this;
    }

    boolean has(String field)
    {
        return node.has(field) && !node.get(field).isNull();
    }

    JsonCursor field(String field)
    {
        if (!has(field)) {
            throw error("missing required field '" + field + "'");
        }
        return new JsonCursor(file, path + "." + field, node.get(field));
    }

    Optional<JsonCursor> optionalField(String field)
    {
        return has(field) ? Optional.of(new JsonCursor(file, path + "." + field, node.get(field))) : Optional.empty();
    }

    List<JsonCursor> elements()
    {
        if (!node.isArray()) {
            throw error("expected an array, got " + describe(node));
        }
        List<JsonCursor> elements = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            elements.add(new JsonCursor(file, path + "[" + i + "]", node.get(i)));
        }
        return elements;
    }

    List<JsonCursor> optionalElements(String field)
    {
        return optionalField(field).map(JsonCursor::elements).orElse(List.of());
    }

    String string()
    {
        if (!node.isTextual()) {
            throw error("expected a string, got " + describe(node));
        }
        return node.textValue();
    }

    int integer()
    {
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
            throw error("expected an integer, got " + describe(node));
        }
        return node.intValue();
    }

    long longValue()
    {
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            throw error("expected an integer, got " + describe(node));
        }
        return node.longValue();
    }

    double number()
    {
        if (!node.isNumber()) {
            throw error("expected a number, got " + describe(node));
        }
        return node.doubleValue();
    }

    boolean bool()
    {
        if (!node.isBoolean()) {
            throw error("expected true or false, got " + describe(node));
        }
        return node.booleanValue();
    }

    <E extends Enum<E>> E enumValue(Class<E> type)
    {
        String text = string();
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equalsIgnoreCase(text.trim())) {
                return constant;
            }
        }
        List<String> names = new ArrayList<>();
        for (E constant : type.getEnumConstants()) {
            names.add(constant.name());
        }
        throw error("expected one of " + String.join(", ", names) + ", got '" + text + "'");
    }

    List<String> strings()
    {
        List<String> values = new ArrayList<>();
        for (JsonCursor element : elements()) {
            values.add(element.string());
        }
        return values;
    }

    Optional<String> optionalString(String field)
    {
        return optionalField(field).map(JsonCursor::string);
    }

    OptionalInt optionalInt(String field)
    {
        return has(field) ? OptionalInt.of(field(field).integer()) : OptionalInt.empty();
    }

    FerryException error(String problem)
    {
        return new FerryException(ErrorCategory.USER_ERROR, prefix() + path + ": " + problem);
    }

    FerryException error(String problem, Throwable cause)
    {
        return new FerryException(ErrorCategory.USER_ERROR, prefix() + path + ": " + problem, cause);
    }

    private String prefix()
    {
        return "Topology file " + file + ": ";
    }

    private static String describe(JsonNode node)
    {
        String text = node.toString();
        return node.getNodeType().name().toLowerCase(Locale.ROOT) + " " + (text.length() > 60 ? text.substring(0, 60) + "..." : text);
    }
}
