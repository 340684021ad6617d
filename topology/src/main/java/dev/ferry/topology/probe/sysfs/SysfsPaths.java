package dev.ferry.topology.probe.sysfs;

import dev.ferry.common.FerryException;
import dev.ferry.topology.model.PciAddress;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads PCI structure out of resolved {@code /sys/devices/...} paths.
 * <p>
 * The kernel names a host bridge {@code pciDDDD:BB} and every function below it by its address, so
 * the resolved path of a device spells the route from the root complex: root port, then for every
 * switch an upstream and a downstream port, then the device. Class devices (a netdev, an NVMe
 * controller, an RDMA device) sit below the PCI function they belong to, so the last address in
 * their resolved path is that function.
 */
public final class SysfsPaths
{
    private static final Pattern ROOT_COMPLEX = Pattern.compile("pci[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}");
    private static final Pattern FUNCTION = Pattern.compile("[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");

    private SysfsPaths() {}

    /** Whether a path component is a PCI function address such as {@code 0000:3b:00.0}. */
    public static boolean isFunction(String component)
    {
        return FUNCTION.matcher(component).matches();
    }

    /** The address a path component names, empty when it names none (or an impossible one, e.g. device 0x3f). */
    public static Optional<PciAddress> parseFunction(String component)
    {
        if (!isFunction(component)) {
            return Optional.empty();
        }
        try {
            return Optional.of(PciAddress.parse(component));
        }
        catch (FerryException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The last PCI function address in a resolved path, empty for virtual devices. */
    public static Optional<PciAddress> lastFunction(Path resolved)
    {
        List<PciAddress> functions = functions(resolved);
        return functions.isEmpty() ? Optional.empty() : Optional.of(functions.get(functions.size() - 1));
    }

    /**
     * The functions after the innermost root complex component, in order from the root port down.
     * Components before the root complex (Hyper-V's {@code VMBUS:00/<guid>}) are ignored.
     */
    public static List<PciAddress> functions(Path resolved)
    {
        List<String> names = names(resolved);
        int start = 0;
        for (int index = 0; index < names.size(); index++) {
            if (ROOT_COMPLEX.matcher(names.get(index)).matches()) {
                start = index + 1;
            }
        }
        List<PciAddress> functions = new ArrayList<>();
        for (int index = start; index < names.size(); index++) {
            parseFunction(names.get(index)).ifPresent(functions::add);
        }
        return List.copyOf(functions);
    }

    /**
     * The host bridge component ({@code pci0000:00}) of a resolved path. Without one (unusual
     * virtual layouts) the component just above the first function stands in, so that devices under
     * the same parent still share a root.
     */
    public static String rootComplex(Path resolved)
    {
        List<String> names = names(resolved);
        String root = null;
        for (String name : names) {
            if (ROOT_COMPLEX.matcher(name).matches()) {
                root = name.toLowerCase(Locale.ROOT);
            }
        }
        if (root != null) {
            return root;
        }
        for (int index = 0; index < names.size(); index++) {
            if (isFunction(names.get(index))) {
                return index == 0 ? "unknown" : names.get(index - 1);
            }
        }
        return "unknown";
    }

    /** The file name a symlink points at ({@code iommu_group} -> {@code 12}), empty if it is no link. */
    public static Optional<String> linkTargetName(Path link)
    {
        try {
            if (!Files.isSymbolicLink(link)) {
                return Optional.empty();
            }
            Path target = Files.readSymbolicLink(link).getFileName();
            return target == null ? Optional.empty() : Optional.of(target.toString());
        }
        catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    private static List<String> names(Path path)
    {
        List<String> names = new ArrayList<>();
        for (Path name : path) {
            names.add(name.toString());
        }
        return names;
    }
}
