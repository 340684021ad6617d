package dev.ferry.conf;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;

/** Documentation of every {@code spark.ferry.*} key, generated from the definitions themselves. */
public final class ConfigDocs
{
    private ConfigDocs() {}

    public static List<ConfigKeySet> allSets()
    {
        List<ConfigKeySet> sets = new ArrayList<>();
        ServiceLoader.load(ConfigKeySet.class, ConfigDocs.class.getClassLoader()).forEach(sets::add);
        sets.sort(Comparator.comparing(ConfigKeySet::section));
        Set<String> seen = new HashSet<>();
        for (ConfigKeySet set : sets) {
            for (ConfigKey<?> key : set.keys()) {
                if (!seen.add(key.name())) {
                    throw new IllegalStateException("Config key defined twice: " + key.name());
                }
            }
        }
        return sets;
    }

    /** Prints {@link #markdown()}: {@code bin/ferry conf}. */
    public static void main(String[] args)
    {
        System.out.print(markdown());
    }

    /** A Markdown table per section: key, default, meaning. */
    public static String markdown()
    {
        StringBuilder out = new StringBuilder();
        for (ConfigKeySet set : allSets()) {
            out.append("### ").append(set.section()).append("\n\n");
            out.append("| key | default | meaning |\n|---|---|---|\n");
            for (ConfigKey<?> key : set.keys()) {
                out.append("| `").append(key.name()).append("` | `").append(key.defaultText()).append("` | ")
                        .append(key.doc().replace("|", "\\|").replace("\n", " ")).append(" |\n");
            }
            out.append('\n');
        }
        return out.toString();
    }
}
