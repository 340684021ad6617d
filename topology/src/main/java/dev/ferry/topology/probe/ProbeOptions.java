package dev.ferry.topology.probe;

import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * Where {@link MachineProber} looks.
 *
 * @param sysfsRoot the sysfs mount, {@code /sys} on a live machine, a fixture or a copied tree otherwise
 * @param procRoot the procfs mount, {@code /proc} on a live machine (host name, CPU vendor, mount table)
 * @param useNvml whether to ask NVML; off for offline trees, where the live driver would describe another machine
 */
public record ProbeOptions(Path sysfsRoot, Path procRoot, boolean useNvml)
{
    public ProbeOptions
    {
        requireNonNull(sysfsRoot, "sysfsRoot is null");
        requireNonNull(procRoot, "procRoot is null");
    }

    /** This machine: {@code /sys}, {@code /proc}, and NVML when the driver is there. */
    public static ProbeOptions localMachine()
    {
        return new ProbeOptions(Path.of("/sys"), Path.of("/proc"), true);
    }

    /**
     * A sysfs tree captured or built elsewhere. NVML is not asked and procfs points nowhere, since both
     * would describe this machine rather than the tree's; the node is then named {@code localhost}.
     */
    public static ProbeOptions sysfsTree(Path sysfsRoot)
    {
        return new ProbeOptions(sysfsRoot, Path.of("/nonexistent-proc"), false);
    }

    public ProbeOptions withNvml(boolean useNvml)
    {
        return new ProbeOptions(sysfsRoot, procRoot, useNvml);
    }
}
