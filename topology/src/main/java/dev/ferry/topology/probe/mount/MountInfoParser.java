package dev.ferry.topology.probe.mount;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Parses {@code /proc/self/mountinfo}:
 * <pre>
 * 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
 * (1)(2)(3)   (4)   (5)      (6)      (7)   (8) (9)   (10)         (11)
 * </pre>
 * The optional fields (7) end at a lone {@code -}. The kernel escapes space, tab, newline and
 * backslash in paths as {@code \040}, {@code \011}, {@code \012} and {@code \134}.
 */
public final class MountInfoParser
{
    private MountInfoParser() {}

    /** Every entry, in file order; a malformed line is a {@code USER_ERROR} naming its number. */
    public static List<MountEntry> parse(String text)
    {
        List<MountEntry> entries = new ArrayList<>();
        String[] lines = text.split("\n");
        for (int index = 0; index < lines.length; index++) {
            String line = lines[index].strip();
            if (!line.isEmpty()) {
                entries.add(parseLine(line, index + 1));
            }
        }
        return List.copyOf(entries);
    }

    static MountEntry parseLine(String line, int lineNumber)
    {
        String[] fields = line.split(" ");
        int separator = Arrays.asList(fields).indexOf("-");
        if (fields.length < 10 || separator < 6 || fields.length < separator + 3) {
            throw malformed(line, lineNumber, "expected 'id parent major:minor root mountpoint options [optional...] - fstype source superoptions'");
        }
        String[] device = fields[2].split(":");
        if (device.length != 2) {
            throw malformed(line, lineNumber, "device '" + fields[2] + "' is not major:minor");
        }
        try {
            return new MountEntry(
                    Integer.parseInt(fields[0]),
                    Integer.parseInt(fields[1]),
                    Integer.parseInt(device[0]),
                    Integer.parseInt(device[1]),
                    unescape(fields[3]),
                    unescape(fields[4]),
                    options(fields[5]),
                    List.of(Arrays.copyOfRange(fields, 6, separator)),
                    unescape(fields[separator + 1]),
                    unescape(fields[separator + 2]),
                    fields.length > separator + 3 ? options(fields[separator + 3]) : List.of());
        }
        catch (NumberFormatException e) {
            throw malformed(line, lineNumber, "ids and device numbers must be decimal");
        }
    }

    /** Undoes the kernel's octal escapes ({@code \040} is a space). */
    public static String unescape(String field)
    {
        if (field.indexOf('\\') < 0) {
            return field;
        }
        StringBuilder text = new StringBuilder(field.length());
        for (int index = 0; index < field.length(); index++) {
            char character = field.charAt(index);
            if (character == '\\' && isOctal(field, index + 1)) {
                text.append((char) Integer.parseInt(field.substring(index + 1, index + 4), 8));
                index += 3;
            }
            else {
                text.append(character);
            }
        }
        return text.toString();
    }

    private static boolean isOctal(String field, int start)
    {
        if (start + 3 > field.length()) {
            return false;
        }
        for (int index = start; index < start + 3; index++) {
            char digit = field.charAt(index);
            if (digit < '0' || digit > '7') {
                return false;
            }
        }
        return true;
    }

    private static List<String> options(String field)
    {
        List<String> options = new ArrayList<>();
        for (String option : field.split(",")) {
            if (!option.isEmpty()) {
                options.add(unescape(option));
            }
        }
        return List.copyOf(options);
    }

    private static FerryException malformed(String line, int lineNumber, String problem)
    {
        return new FerryException(ErrorCategory.USER_ERROR, "Malformed mountinfo line " + lineNumber + ": " + problem + ": '" + line + "'");
    }
}
