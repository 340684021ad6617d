package dev.ferry.topology.probe;

import dev.ferry.topology.model.CpuInfo;
import dev.ferry.topology.probe.sysfs.SysfsReader;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/** Host name and CPU identity from procfs, for the node's name and its inter-socket bandwidth. */
final class ProcFacts
{
    private ProcFacts() {}

    static String hostname(Path procRoot)
    {
        return SysfsReader.read(procRoot.resolve("sys/kernel/hostname")).orElse("localhost");
    }

    /**
     * Vendor, family and model from the first processor in {@code cpuinfo}. The architecture follows from
     * which fields exist: x86 prints {@code vendor_id}, ARM {@code CPU implementer}, POWER a {@code cpu}
     * line naming the chip.
     */
    static Optional<CpuInfo> cpu(Path procRoot)
    {
        Optional<String> text = SysfsReader.read(procRoot.resolve("cpuinfo"));
        if (text.isEmpty()) {
            return Optional.empty();
        }
        Map<String, String> fields = new HashMap<>();
        for (String line : text.get().split("\n")) {
            if (line.isBlank()) {
                // Only the first processor's block
                break;
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                fields.putIfAbsent(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        String arch;
        if (fields.containsKey("vendor_id")) {
            arch = "x86_64";
        }
        else if (fields.containsKey("CPU implementer")) {
            arch = "aarch64";
        }
        else if (fields.getOrDefault("cpu", "").startsWith("POWER")) {
            arch = "ppc64le";
        }
        else {
            arch = "";
        }
        return Optional.of(new CpuInfo(fields.getOrDefault("vendor_id", ""), arch, number(fields.get("cpu family")), number(fields.get("model"))));
    }

    private static OptionalInt number(String text)
    {
        if (text == null) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(text.trim()));
        }
        catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }
}
