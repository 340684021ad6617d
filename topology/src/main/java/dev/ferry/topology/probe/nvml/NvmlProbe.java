package dev.ferry.topology.probe.nvml;

import dev.ferry.common.FerryException;
import dev.ferry.topology.model.P2pAccess;
import dev.ferry.topology.model.P2pState;
import dev.ferry.topology.model.P2pStatus;
import dev.ferry.topology.model.PciAddress;
import dev.ferry.topology.model.PcieLink;
import dev.ferry.topology.model.ProbeReport;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Asks NVML what it knows about the GPUs: identity, PCI address, compute capability, PCIe link, CPU
 * affinity, NVLinks, and P2P status READ and WRITE for every pair. (The NUMA node comes from sysfs.)
 * <p>
 * NVLinks are probed the way NCCL does: as many links as the architecture can have (compute
 * capability below 6.0: none, below 7.0: 4, below 8.0: 6, below 9.0: 12, else 18), keeping those
 * that support P2P and are active; errors on links a GPU does not have are expected and skipped. A
 * link whose far end NVML cannot name is taken to end at an NVSwitch unless it names a known GPU.
 * <p>
 * A call that fails for one attribute leaves that attribute unknown and adds a warning; only a
 * failure to count GPUs makes NVML unavailable.
 */
public final class NvmlProbe
{
    public static final String NAME = "nvml";

    /**
     * {@code nvmlDeviceGetNvLinkRemoteDeviceType} arrived with the R450 driver (CUDA 11.0); asking an older
     * driver for a symbol it lacks would end the process, so there the remote's address decides.
     */
    private static final int REMOTE_DEVICE_TYPE_DRIVER = 450;

    /** CPU masks are read with room for 2048 CPUs. */
    private static final int CPU_MASK_WORDS = 32;

    private NvmlProbe() {}

    /** Opens NVML through {@code loader} and reads it; never throws. */
    public static NvmlProbeResult probe(NvmlLoader loader)
    {
        requireNonNull(loader, "loader is null");
        NvmlAvailability availability = loader.load();
        if (availability.library().isEmpty()) {
            return NvmlProbeResult.unavailable(availability.reason());
        }
        return probe(availability.library().get());
    }

    /** Reads an opened library; never throws (a call that fails outright makes NVML unavailable). */
    public static NvmlProbeResult probe(NvmlLibrary library)
    {
        requireNonNull(library, "library is null");
        NvmlSnapshot snapshot;
        try {
            snapshot = read(library);
        }
        catch (NvmlCallException e) {
            return NvmlProbeResult.unavailable(e.getMessage());
        }
        catch (RuntimeException | LinkageError e) {
            // A driver older than the bindings can miss a symbol; that is NVML being unusable, not a bug here
            return NvmlProbeResult.unavailable(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
        return new NvmlProbeResult(Optional.of(snapshot), ProbeReport.ran(NAME, summary(snapshot)));
    }

    static NvmlSnapshot read(NvmlLibrary library)
    {
        List<String> warnings = new ArrayList<>();
        String driverVersion = attempt(warnings, "driver version", library::driverVersion).orElse("");
        int count = library.deviceCount();
        List<NvmlGpu> gpus = new ArrayList<>();
        for (int device = 0; device < count; device++) {
            gpus.add(readGpu(library, device, warnings));
        }
        Set<PciAddress> gpuAddresses = gpus.stream().flatMap(gpu -> gpu.pci().stream()).collect(Collectors.toSet());
        boolean remoteTypeKnown = driverMajor(driverVersion) >= REMOTE_DEVICE_TYPE_DRIVER;
        List<NvmlGpu> resolved = new ArrayList<>();
        for (NvmlGpu gpu : gpus) {
            resolved.add(resolveEndpoints(library, gpu, gpuAddresses, remoteTypeKnown));
        }
        List<P2pStatus> statuses = new ArrayList<>();
        for (int first = 0; first < count; first++) {
            for (int second = first + 1; second < count; second++) {
                statuses.add(new P2pStatus(
                        gpuName(first),
                        gpuName(second),
                        p2p(library, first, second, NvmlConstants.NVML_P2P_CAPS_INDEX_READ),
                        p2p(library, first, second, NvmlConstants.NVML_P2P_CAPS_INDEX_WRITE)));
            }
        }
        return new NvmlSnapshot(driverVersion, resolved, statuses, warnings);
    }

    /** The driver's major version ({@code 550} for {@code 550.54.15}), 0 when unknown. */
    static int driverMajor(String driverVersion)
    {
        int dot = driverVersion.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? driverVersion.trim() : driverVersion.substring(0, dot).trim());
        }
        catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The name GPUs carry in relations and P2P statuses: {@code GPU<index>}, as in {@code nvidia-smi topo -m}. */
    public static String gpuName(int index)
    {
        return "GPU" + index;
    }

    /** NVLinks to probe for a compute capability, as NCCL does. */
    public static int nvLinksToProbe(int major, int minor)
    {
        int sm = major * 10 + minor;
        if (sm < 60) {
            return 0;
        }
        if (sm < 70) {
            return 4;
        }
        if (sm < 80) {
            return 6;
        }
        if (sm < 90) {
            return 12;
        }
        return 18;
    }

    private static NvmlGpu readGpu(NvmlLibrary library, int device, List<String> warnings)
    {
        String label = gpuName(device);
        String name = attempt(warnings, label + " name", () -> library.name(device)).orElse("unknown");
        Optional<String> uuid = attempt(warnings, label + " UUID", () -> library.uuid(device));
        Optional<PciAddress> pci = attempt(warnings, label + " PCI info", () -> library.pciBusId(device)).flatMap(busId -> parseBusId(busId, label, warnings));
        Optional<int[]> capability = attempt(warnings, label + " compute capability", () -> library.computeCapability(device));
        PcieLink maxLink = pcieLink(
                attemptInt(warnings, label + " max PCIe generation", () -> library.maxPcieGeneration(device)),
                attemptInt(warnings, label + " max PCIe width", () -> library.maxPcieWidth(device)));
        PcieLink currentLink = pcieLink(
                attemptInt(warnings, label + " current PCIe generation", () -> library.currentPcieGeneration(device)),
                attemptInt(warnings, label + " current PCIe width", () -> library.currentPcieWidth(device)));
        String cpuAffinity = attempt(warnings, label + " CPU affinity", () -> library.cpuAffinity(device, CPU_MASK_WORDS))
                .map(CpuMasks::toCpuList)
                .orElse("");
        List<NvmlLink> links = new ArrayList<>();
        int linksToProbe = capability.map(value -> nvLinksToProbe(value[0], value[1])).orElse(0);
        for (int link = 0; link < linksToProbe; link++) {
            readLink(library, device, link).ifPresent(links::add);
        }
        return new NvmlGpu(device, name, uuid, pci, capability.map(value -> value[0] + "." + value[1]), maxLink, currentLink, cpuAffinity, links);
    }

    // Endpoint type NVML left unknown stays unresolved here; resolveEndpoints settles it once all GPUs are known
    private static Optional<NvmlLink> readLink(NvmlLibrary library, int device, int link)
    {
        try {
            if (!library.nvLinkP2pSupported(device, link) || !library.nvLinkActive(device, link)) {
                return Optional.empty();
            }
        }
        catch (NvmlCallException e) {
            // Links beyond what this GPU has answer INVALID_ARGUMENT or NOT_SUPPORTED: not a link
            return Optional.empty();
        }
        int version;
        try {
            version = library.nvLinkVersion(device, link);
        }
        catch (NvmlCallException e) {
            version = 0;
        }
        Optional<PciAddress> remote;
        try {
            remote = parseQuietly(library.nvLinkRemoteBusId(device, link));
        }
        catch (NvmlCallException e) {
            remote = Optional.empty();
        }
        return Optional.of(new NvmlLink(link, version, remote, NvLinkEndpoint.NVSWITCH));
    }

    private static NvmlGpu resolveEndpoints(NvmlLibrary library, NvmlGpu gpu, Set<PciAddress> gpuAddresses, boolean remoteTypeKnown)
    {
        List<NvmlLink> links = new ArrayList<>();
        for (NvmlLink link : gpu.nvLinks()) {
            int type = NvmlConstants.NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
            if (remoteTypeKnown) {
                try {
                    type = library.nvLinkRemoteDeviceType(gpu.index(), link.link());
                }
                catch (NvmlCallException e) {
                    type = NvmlConstants.NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
                }
            }
            boolean remoteIsGpu = link.remote().isPresent() && gpuAddresses.contains(link.remote().get());
            links.add(new NvmlLink(link.link(), link.version(), link.remote(), NvLinkEndpoint.ofNvml(type, remoteIsGpu)));
        }
        return new NvmlGpu(gpu.index(), gpu.name(), gpu.uuid(), gpu.pci(), gpu.computeCapability(), gpu.maxLink(), gpu.currentLink(),
                gpu.cpuAffinity(), links);
    }

    private static P2pAccess p2p(NvmlLibrary library, int first, int second, int capability)
    {
        int status;
        try {
            status = library.p2pStatus(first, second, capability);
        }
        catch (NvmlCallException e) {
            return P2pAccess.unknown(e.getMessage());
        }
        if (status == NvmlConstants.NVML_P2P_STATUS_OK) {
            return P2pAccess.ok();
        }
        if (status == NvmlConstants.NVML_P2P_STATUS_UNKNOWN) {
            return new P2pAccess(P2pState.UNKNOWN, OptionalInt.of(status), NvmlConstants.p2pStatusName(status));
        }
        return P2pAccess.notSupported(status, NvmlConstants.p2pStatusName(status));
    }

    private static Optional<PciAddress> parseBusId(String busId, String label, List<String> warnings)
    {
        Optional<PciAddress> address = parseQuietly(busId);
        if (address.isEmpty()) {
            warnings.add(label + " PCI bus id not understood: '" + busId + "'");
        }
        return address;
    }

    // NVML leaves the remote bus id empty or garbled in VMs that hide NVSwitches
    private static Optional<PciAddress> parseQuietly(String busId)
    {
        if (busId == null || busId.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(PciAddress.parse(busId));
        }
        catch (FerryException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static PcieLink pcieLink(OptionalInt generation, OptionalInt width)
    {
        int gen = generation.orElse(0);
        int lanes = width.orElse(0);
        return new PcieLink(gen >= 0 && gen <= 6 ? gen : 0, lanes >= 0 && lanes <= 32 ? lanes : 0);
    }

    private static <T> Optional<T> attempt(List<String> warnings, String what, Supplier<T> call)
    {
        try {
            return Optional.ofNullable(call.get());
        }
        catch (NvmlCallException e) {
            if (e.code() != NvmlConstants.NVML_ERROR_NOT_SUPPORTED) {
                warnings.add(what + ": " + e.getMessage());
            }
            return Optional.empty();
        }
    }

    private static OptionalInt attemptInt(List<String> warnings, String what, IntSupplier call)
    {
        Optional<Integer> value = attempt(warnings, what, call::getAsInt);
        return value.isPresent() ? OptionalInt.of(value.get()) : OptionalInt.empty();
    }

    private static String summary(NvmlSnapshot snapshot)
    {
        long nvLinks = snapshot.gpus().stream().mapToLong(gpu -> gpu.nvLinks().size()).sum();
        long p2pRefused = snapshot.p2pStatuses().stream().filter(status -> !status.bothOk()).count();
        StringBuilder text = new StringBuilder();
        text.append(snapshot.gpus().size()).append(snapshot.gpus().size() == 1 ? " GPU" : " GPUs");
        if (!snapshot.driverVersion().isEmpty()) {
            text.append(", driver ").append(snapshot.driverVersion());
        }
        text.append(", ").append(nvLinks).append(" active NVLinks");
        text.append(", P2P read/write not OK for ").append(p2pRefused).append(" of ").append(snapshot.p2pStatuses().size()).append(" pairs");
        if (!snapshot.warnings().isEmpty()) {
            text.append("; ").append(snapshot.warnings().size()).append(" calls failed: ").append(String.join("; ", snapshot.warnings()));
        }
        return text.toString();
    }
}
