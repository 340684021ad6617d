package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.KernelFacts;
import dev.ferry.topology.model.NetInterface;
import dev.ferry.topology.model.NvmeDrive;
import dev.ferry.topology.model.PciAddress;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * Everything the sysfs probe read, before it is merged with NVML into a node topology.
 *
 * @param pciBusPresent whether {@code bus/pci/devices} exists (false: not Linux, or sysfs not mounted)
 * @param pciDevices every PCI function, bridges included, by address
 * @param infinibandClassPresent whether {@code class/infiniband} exists
 * @param rdmaDevices RDMA devices
 * @param netInterfaces device-backed and IPoIB interfaces
 * @param nvmeDrives NVMe controllers with their namespaces
 * @param numaNodes CPU lists by NUMA node
 * @param kernelFacts peer memory, nvidia_fs, IOMMU
 * @param nvidiaDriverVersion the loaded {@code nvidia} module's version
 */
public record SysfsSnapshot(
        boolean pciBusPresent,
        Map<PciAddress, SysfsPciDevice> pciDevices,
        boolean infinibandClassPresent,
        List<SysfsRdmaDevice> rdmaDevices,
        List<NetInterface> netInterfaces,
        List<NvmeDrive> nvmeDrives,
        Map<Integer, String> numaNodes,
        KernelFacts kernelFacts,
        Optional<String> nvidiaDriverVersion)
{
    public SysfsSnapshot
    {
        pciDevices = Collections.unmodifiableMap(new TreeMap<>(requireNonNull(pciDevices, "pciDevices is null")));
        rdmaDevices = List.copyOf(requireNonNull(rdmaDevices, "rdmaDevices is null"));
        netInterfaces = List.copyOf(requireNonNull(netInterfaces, "netInterfaces is null"));
        nvmeDrives = List.copyOf(requireNonNull(nvmeDrives, "nvmeDrives is null"));
        numaNodes = Collections.unmodifiableMap(new TreeMap<>(requireNonNull(numaNodes, "numaNodes is null")));
        requireNonNull(kernelFacts, "kernelFacts is null");
        requireNonNull(nvidiaDriverVersion, "nvidiaDriverVersion is null");
    }

    /** Reads every part of the tree below {@code sysfs}; never throws for missing parts. */
    public static SysfsSnapshot scan(SysfsReader sysfs)
    {
        requireNonNull(sysfs, "sysfs is null");
        RdmaDeviceScanner rdma = new RdmaDeviceScanner(sysfs);
        KernelFactsScanner kernel = new KernelFactsScanner(sysfs);
        return new SysfsSnapshot(
                SysfsReader.exists(sysfs.path("bus/pci/devices")),
                new PciDeviceScanner(sysfs).scan(),
                rdma.classPresent(),
                rdma.scan(),
                new NetInterfaceScanner(sysfs).scan(),
                new NvmeScanner(sysfs).scan(),
                new NumaScanner(sysfs).scan(),
                kernel.scan(),
                kernel.nvidiaDriverVersion());
    }

    /** NVIDIA GPUs in address order, which is also CUDA's {@code PCI_BUS_ID} order and usually NVML's. */
    public List<SysfsPciDevice> nvidiaGpus()
    {
        return pciDevices.values().stream().filter(SysfsPciDevice::isNvidiaGpu).toList();
    }

    public List<SysfsPciDevice> nvSwitches()
    {
        return pciDevices.values().stream().filter(device -> device.kind() == PciDeviceKind.NVSWITCH).toList();
    }

    public Optional<SysfsPciDevice> pciDevice(PciAddress address)
    {
        return Optional.ofNullable(pciDevices.get(address));
    }
}
