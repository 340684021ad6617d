package dev.ferry.conf;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Checks an application's {@code spark.ferry.*} settings once, at start (the driver plugin): every
 * value is parsed by its key, so a bad value fails the start naming the key, the value and what is
 * allowed, instead of failing (or not) at the first query that reads it; a key no module defines is
 * a warning with the nearest known key, since Spark itself passes any name through.
 */
public final class ConfigCheck
{
    private static final String PREFIX = "spark.ferry.";

    private ConfigCheck() {}

    /** As {@link #check(Map, List)} against every key of every module on the class path. */
    public static List<String> check(Map<String, String> settings)
    {
        return check(settings, ConfigDocs.allSets());
    }

    /**
     * @return one warning per unknown {@code spark.ferry.*} key, in key order
     * @throws IllegalArgumentException listing every value its key refused
     */
    public static List<String> check(Map<String, String> settings, List<ConfigKeySet> sets)
    {
        Map<String, ConfigKey<?>> known = new TreeMap<>();
        for (ConfigKeySet set : sets) {
            for (ConfigKey<?> key : set.keys()) {
                known.put(key.name(), key);
            }
        }
        List<String> warnings = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (Map.Entry<String, String> setting : new TreeMap<>(settings).entrySet()) {
            String name = setting.getKey();
            if (!name.startsWith(PREFIX)) {
                continue;
            }
            ConfigKey<?> key = known.get(name);
            if (key == null) {
                warnings.add("Unknown setting " + name + " is ignored" + suggestion(name, known.keySet()).map(near -> "; did you mean " + near + "?").orElse(
                        " (bin/ferry conf lists every key)"));
                continue;
            }
            try {
                key.parse(setting.getValue());
            }
            catch (IllegalArgumentException e) {
                String message = e.getMessage() == null ? e.toString() : e.getMessage();
                errors.add(message.contains(name) ? message : name + "='" + setting.getValue() + "': " + message);
            }
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException("Ferry refused " + errors.size() + (errors.size() == 1 ? " setting" : " settings") + " at start: "
                    + String.join("; ", errors));
        }
        return warnings;
    }

    /**
     * The known key nearest to {@code unknown} by edit distance, when it is near enough to be a
     * typo: at most 3 edits, or a sixth of the name for long names.
     */
    static Optional<String> suggestion(String unknown, Collection<String> known)
    {
        int limit = Math.max(3, unknown.length() / 6);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            int distance = EditDistance.between(unknown, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return bestDistance <= limit ? Optional.ofNullable(best) : Optional.empty();
    }
}
