package dev.ferry.plugin;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** The module table of docs/architecture.md must list each module's Ferry dependencies as its pom declares them. */
class ModuleMapDocsTest
{
    private static final Path REPO = Path.of(System.getProperty("ferry.repo.dir", ".."));
    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern DEPENDENCIES = Pattern.compile("<dependencies>(.*?)</dependencies>", Pattern.DOTALL);
    private static final Pattern FERRY_ARTIFACT = Pattern.compile("<groupId>dev\\.ferry</groupId>\\s*<artifactId>ferry-([a-z-]+)</artifactId>");
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z-]+)` \\| ([^|]*) \\|", Pattern.MULTILINE);

    @Test
    void architectureModuleTableMatchesThePoms()
            throws IOException
    {
        Map<String, Set<String>> fromPoms = new TreeMap<>();
        Matcher modules = MODULE.matcher(read(REPO.resolve("pom.xml")));
        while (modules.find()) {
            String module = modules.group(1).trim();
            fromPoms.put(module, ferryDependencies(read(REPO.resolve(module).resolve("pom.xml"))));
        }
        assertFalse(fromPoms.isEmpty());
        Map<String, Set<String>> documented = new TreeMap<>();
        String architecture = read(REPO.resolve("docs/architecture.md"));
        String table = architecture.substring(architecture.indexOf("| module | depends on | role |"));
        table = table.substring(0, table.indexOf("\n\n"));
        Matcher row = ROW.matcher(table);
        while (row.find()) {
            String depends = row.group(2).trim();
            documented.put(row.group(1), depends.equals("-") ? Set.of() : new TreeSet<>(Arrays.stream(depends.split(",")).map(String::trim).toList()));
        }
        assertEquals(fromPoms, documented, "docs/architecture.md's module table (| module | depends on | role |) disagrees with the poms' dev.ferry dependencies");
    }

    private static Set<String> ferryDependencies(String pom)
    {
        Set<String> dependencies = new TreeSet<>();
        // The <dependencies> of the project, not of <dependencyManagement> or a plugin.
        String withoutManagement = pom.replaceAll("(?s)<dependencyManagement>.*?</dependencyManagement>", "").replaceAll("(?s)<build>.*?</build>", "");
        Matcher block = DEPENDENCIES.matcher(withoutManagement);
        List<String> blocks = new ArrayList<>();
        while (block.find()) {
            blocks.add(block.group(1));
        }
        for (String text : blocks) {
            Matcher artifact = FERRY_ARTIFACT.matcher(text);
            while (artifact.find()) {
                dependencies.add(artifact.group(1));
            }
        }
        return dependencies;
    }

    private static String read(Path file)
            throws IOException
    {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
