package dev.ferry.shuffle.transport.wire;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The module README's protocol table lists every message type once, under its id, with its class's name and its frame limit, and the retired ids as MessageType does. */
class TestProtocolTable
{
    @Test
    void theReadmeTableMatchesMessageType()
            throws IOException
    {
        Map<MessageType, String> documented = new EnumMap<>(MessageType.class);
        Set<Byte> retired = null;
        for (String line : Files.readAllLines(Path.of("README.md"))) {
            if (line.startsWith("Retired ids: ")) {
                assertTrue(retired == null, "retired ids listed twice");
                retired = new TreeSet<>();
                for (String id : line.substring("Retired ids: ".length(), line.indexOf(" (")).split(", ")) {
                    retired.add((byte) Integer.parseInt(id));
                }
                continue;
            }
            String[] cells = line.split("\\|");
            if (cells.length < 6 || !cells[1].trim().matches("[0-9]+(, [0-9]+)*")) {
                continue;
            }
            String[] ids = cells[1].trim().split(", ");
            String[] names = cells[2].trim().replace("`", "").split(", ");
            String[] limits = cells[4].trim().split(", ");
            assertEquals(ids.length, names.length, line);
            for (int i = 0; i < ids.length; i++) {
                MessageType type = MessageType.fromId((byte) Integer.parseInt(ids[i]));
                assertEquals(className(type), names[i], "id " + ids[i] + " in " + line);
                String limit = limits[limits.length == 1 ? 0 : i];
                assertEquals(limit(type), limit, "limit of " + type + " in " + line);
                assertTrue(documented.put(type, line) == null, type + " documented twice");
            }
        }
        assertEquals(new TreeSet<>(MessageType.RETIRED.keySet()), retired, "the README's retired ids");
        assertEquals(MessageType.values().length, documented.size(), "undocumented: " + java.util.EnumSet.complementOf(java.util.EnumSet.copyOf(documented.keySet())));
    }

    private static String className(MessageType type)
    {
        StringBuilder name = new StringBuilder();
        for (String word : type.name().split("_")) {
            name.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
        }
        return name.toString();
    }

    private static String limit(MessageType type)
    {
        if (type == MessageType.BLOCK_RESPONSE) {
            return "fetch limit";
        }
        long bytes = type.maxFrameBytes(Long.MAX_VALUE);
        return bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
    }
}
