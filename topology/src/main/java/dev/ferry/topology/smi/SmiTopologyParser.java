package dev.ferry.topology.smi;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.topology.model.PathClass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the text of {@code nvidia-smi topo -m} into an {@link SmiMatrix}. Works on tokens, not column
 * positions, so tab-separated output and copies with tabs expanded to spaces read the same. Every
 * structural problem is a {@code USER_ERROR} naming the line: a misread matrix would silently produce
 * wrong routes.
 * <p>
 * Accepted variants: {@code mlx5_N} columns (old drivers) or {@code NICk} columns with a trailing
 * "NIC Legend" block (new drivers); zero to three affinity columns ({@code CPU Affinity},
 * {@code NUMA Affinity}, {@code GPU NUMA ID}), present on GPU rows only; {@code SOC} for {@code SYS};
 * text before the header and legends after the matrix.
 */
final class SmiTopologyParser
{
    static final List<String> AFFINITY_COLUMNS = List.of("CPU Affinity", "NUMA Affinity", "GPU NUMA ID");

    private static final Pattern GPU_NAME = Pattern.compile("GPU\\d+");
    private static final Pattern LEGEND_ENTRY = Pattern.compile("\\S+\\s+=\\s.*");
    private static final Pattern NIC_LEGEND_ENTRY = Pattern.compile("\\s*(NIC\\d+)\\s*:\\s*(\\S+)\\s*");
    private static final Pattern CPU_LIST = Pattern.compile("\\d+(-\\d+)?(,\\d+(-\\d+)?)*");
    private static final Pattern NUMA_VALUE = Pattern.compile("\\d+(-\\d+)?(,\\d+(-\\d+)?)*");

    private final String sourceName;
    private final List<String> lines;

    private SmiTopologyParser(String sourceName, String text)
    {
        this.sourceName = sourceName;
        // Windows line ends and a trailing carriage return would otherwise become part of the last token
        this.lines = List.of(text.replace("\r\n", "\n").replace('\r', '\n').split("\n", -1));
    }

    static SmiMatrix parse(String sourceName, String text)
    {
        return new SmiTopologyParser(sourceName, text).parse();
    }

    private SmiMatrix parse()
    {
        int headerIndex = findHeader();
        List<String> headerTokens = headerTokens(lines.get(headerIndex));
        List<String> devices = new ArrayList<>();
        List<String> affinityColumns = new ArrayList<>();
        for (String token : headerTokens) {
            if (AFFINITY_COLUMNS.contains(token)) {
                affinityColumns.add(token);
            }
            else if (!affinityColumns.isEmpty()) {
                throw error(headerIndex, "device column '" + token + "' after the affinity columns");
            }
            else if (devices.contains(token)) {
                throw error(headerIndex, "device column '" + token + "' appears twice");
            }
            else {
                devices.add(token);
            }
        }
        if (devices.isEmpty()) {
            throw error(headerIndex, "header has no device columns");
        }

        Map<String, List<String>> cellsByRow = new HashMap<>();
        Map<String, Integer> lineOfRow = new HashMap<>();
        Map<String, Map<String, String>> affinities = new LinkedHashMap<>();
        int index = headerIndex + 1;
        for (; index < lines.size(); index++) {
            String line = lines.get(index);
            if (line.isBlank() || isLegendStart(line)) {
                break;
            }
            List<String> tokens = tokens(line);
            String row = tokens.get(0);
            if (!devices.contains(row)) {
                throw error(index, "row '" + row + "' is not a column of the header (" + String.join(" ", devices) + ")");
            }
            if (cellsByRow.containsKey(row)) {
                throw error(index, "row '" + row + "' appears twice (first on line " + (lineOfRow.get(row) + 1) + ")");
            }
            readRow(index, row, tokens, devices, affinityColumns, cellsByRow, affinities);
            lineOfRow.put(row, index);
        }
        for (String device : devices) {
            if (!cellsByRow.containsKey(device)) {
                throw error(index < lines.size() ? index : lines.size() - 1, "matrix ends without a row for column '" + device + "'");
            }
        }
        checkSymmetric(devices, cellsByRow, lineOfRow);

        Map<String, String> legend = readNicLegend(index, devices);
        List<String> names = new ArrayList<>();
        for (String device : devices) {
            names.add(legend.getOrDefault(device, device));
        }
        List<List<String>> cells = new ArrayList<>();
        Map<String, Map<String, String>> renamedAffinities = new LinkedHashMap<>();
        for (String device : devices) {
            cells.add(cellsByRow.get(device));
            renamedAffinities.put(legend.getOrDefault(device, device), affinities.getOrDefault(device, Map.of()));
        }
        return new SmiMatrix(names, cells, renamedAffinities);
    }

    private int findHeader()
    {
        for (int index = 0; index < lines.size(); index++) {
            List<String> tokens = headerTokens(lines.get(index));
            if (!tokens.isEmpty() && GPU_NAME.matcher(tokens.get(0)).matches()) {
                if (tokens.size() > 1 && PathClass.isCell(tokens.get(1))) {
                    throw error(index, "matrix row before any header line");
                }
                return index;
            }
        }
        throw new FerryException(ErrorCategory.USER_ERROR, "Malformed nvidia-smi topo -m output in " + sourceName
                + ": no header line starting with GPU0 (is this the output of 'nvidia-smi topo -m'?)");
    }

    private void readRow(int index, String row, List<String> tokens, List<String> devices, List<String> affinityColumns,
            Map<String, List<String>> cellsByRow, Map<String, Map<String, String>> affinities)
    {
        int columns = devices.size();
        if (tokens.size() - 1 < columns) {
            throw error(index, "row '" + row + "' has " + (tokens.size() - 1) + " values but the header has " + columns + " device columns");
        }
        List<String> cells = new ArrayList<>();
        for (int column = 0; column < columns; column++) {
            String cell = tokens.get(column + 1);
            PathClass pathClass;
            try {
                pathClass = PathClass.parseCell(cell);
            }
            catch (FerryException e) {
                if (cell.equals("N/A") || CPU_LIST.matcher(cell).matches()) {
                    // An affinity value where a cell belongs: the row is short
                    throw error(index, "row '" + row + "' has " + column + " matrix values but the header has " + columns + " device columns");
                }
                throw error(index, "column '" + devices.get(column) + "': " + e.getMessage());
            }
            boolean diagonal = devices.get(column).equals(row);
            if (diagonal && pathClass != PathClass.SELF) {
                throw error(index, "row '" + row + "' must have X in its own column, found '" + cell + "'");
            }
            if (!diagonal && pathClass == PathClass.SELF) {
                throw error(index, "X outside the diagonal, in column '" + devices.get(column) + "'");
            }
            cells.add(cell.equalsIgnoreCase("X") ? "X" : cell.toUpperCase(Locale.ROOT));
        }
        List<String> rest = tokens.subList(columns + 1, tokens.size());
        if (!rest.isEmpty() && PathClass.isCell(rest.get(0))) {
            throw error(index, "row '" + row + "' has more matrix cells than the header has device columns (" + columns + ")");
        }
        if (rest.size() > affinityColumns.size()) {
            throw error(index, "row '" + row + "' has " + rest.size() + " values after the matrix but the header has "
                    + affinityColumns.size() + " affinity columns");
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < rest.size(); i++) {
            String column = affinityColumns.get(i);
            String value = rest.get(i);
            if (!value.equals("N/A") && !(column.equals("CPU Affinity") ? CPU_LIST : NUMA_VALUE).matcher(value).matches()) {
                throw error(index, "'" + value + "' is not a valid " + column + " value");
            }
            values.put(column, value);
        }
        cellsByRow.put(row, cells);
        if (!values.isEmpty()) {
            affinities.put(row, values);
        }
    }

    private void checkSymmetric(List<String> devices, Map<String, List<String>> cellsByRow, Map<String, Integer> lineOfRow)
    {
        for (int i = 0; i < devices.size(); i++) {
            for (int j = i + 1; j < devices.size(); j++) {
                String forward = cellsByRow.get(devices.get(i)).get(j);
                String backward = cellsByRow.get(devices.get(j)).get(i);
                if (!sameLink(forward, backward)) {
                    int lineA = lineOfRow.get(devices.get(i));
                    int lineB = lineOfRow.get(devices.get(j));
                    throw error(lineB, "matrix is not symmetric: " + devices.get(i) + "/" + devices.get(j) + " is '" + forward
                            + "' on line " + (lineA + 1) + " but " + devices.get(j) + "/" + devices.get(i) + " is '" + backward + "'");
                }
            }
        }
    }

    private static boolean sameLink(String a, String b)
    {
        PathClass classA = PathClass.parseCell(a);
        return classA == PathClass.parseCell(b) && PathClass.nvlinkCount(a) == PathClass.nvlinkCount(b);
    }

    private Map<String, String> readNicLegend(int from, List<String> devices)
    {
        Map<String, String> legend = new HashMap<>();
        boolean inLegend = false;
        for (int index = from; index < lines.size(); index++) {
            String line = lines.get(index);
            String trimmed = line.trim();
            if (trimmed.equalsIgnoreCase("NIC Legend:")) {
                inLegend = true;
                continue;
            }
            if (!inLegend || trimmed.isEmpty()) {
                continue;
            }
            Matcher matcher = NIC_LEGEND_ENTRY.matcher(line);
            if (!matcher.matches()) {
                // Legend text or a new section ends the NIC legend
                inLegend = false;
                continue;
            }
            String column = matcher.group(1);
            String name = matcher.group(2);
            if (!devices.contains(column)) {
                throw error(index, "NIC Legend names " + column + ", which is not a column of the matrix");
            }
            if (legend.containsValue(name) || (devices.contains(name) && !name.equals(column))) {
                throw error(index, "NIC Legend maps " + column + " to '" + name + "', a name already used");
            }
            if (legend.put(column, name) != null) {
                throw error(index, "NIC Legend names " + column + " twice");
            }
        }
        return legend;
    }

    private static boolean isLegendStart(String line)
    {
        String trimmed = line.trim();
        // Legend entries ("X    = Self") can follow the matrix without a blank line in pasted copies
        return trimmed.startsWith("Legend") || trimmed.startsWith("NIC Legend") || LEGEND_ENTRY.matcher(trimmed).matches();
    }

    /** Header tokens, keeping the multi-word affinity column names whole even when fused to a neighbour. */
    private static List<String> headerTokens(String line)
    {
        String marked = line;
        for (String column : AFFINITY_COLUMNS) {
            marked = marked.replace(column, " " + column.replace(' ', '\u0000') + " ");
        }
        List<String> tokens = new ArrayList<>();
        for (String token : tokens(marked)) {
            tokens.add(token.replace('\u0000', ' '));
        }
        return tokens;
    }

    private static List<String> tokens(String line)
    {
        List<String> tokens = new ArrayList<>();
        for (String token : line.trim().split("\\s+")) {
            if (!token.isEmpty()) {
                tokens.add(token);
            }
        }
        return tokens;
    }

    private FerryException error(int index, String problem)
    {
        String content = index >= 0 && index < lines.size() ? lines.get(index).replace("\t", "\\t") : "";
        return new FerryException(ErrorCategory.USER_ERROR, "Malformed nvidia-smi topo -m output in " + sourceName
                + ", line " + (index + 1) + ": " + problem + "\n  line " + (index + 1) + ": " + content.stripTrailing());
    }
}
