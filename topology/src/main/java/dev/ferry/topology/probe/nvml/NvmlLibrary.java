package dev.ferry.topology.probe.nvml;

/**
 * The few NVML calls the topology probe makes, with plain Java values. GPUs are named by their NVML
 * index; an implementation keeps the handles. Every method throws {@link NvmlCallException} when
 * NVML returns anything but {@code NVML_SUCCESS}.
 * <p>
 * The real implementation ({@code JavaCppNvmlLibrary}) touches the JavaCPP bindings and must only be
 * reached through {@link NvmlLoader}; tests drive {@link NvmlProbe} with hand-written fakes.
 * <p>
 * Only calls present in drivers since R450 belong here: the bindings resolve NVML symbols lazily, so
 * calling a function the installed driver lacks would end the process instead of failing the call.
 * That is why the NUMA node comes from sysfs, not from {@code nvmlDeviceGetNumaNodeId}.
 */
public interface NvmlLibrary
{
    /** {@code nvmlSystemGetDriverVersion}. */
    String driverVersion();

    /** {@code nvmlDeviceGetCount_v2}. */
    int deviceCount();

    /** {@code nvmlDeviceGetName}, e.g. {@code NVIDIA H100 80GB HBM3}. */
    String name(int device);

    /** {@code nvmlDeviceGetUUID}, e.g. {@code GPU-5c3c...}. */
    String uuid(int device);

    /** {@code nvmlDeviceGetPciInfo_v3}: the bus id as NVML spells it ({@code 00000000:07:00.0}). */
    String pciBusId(int device);

    /** {@code nvmlDeviceGetCudaComputeCapability}: {@code {major, minor}}. */
    int[] computeCapability(int device);

    /** {@code nvmlDeviceGetMaxPcieLinkGeneration}. */
    int maxPcieGeneration(int device);

    /** {@code nvmlDeviceGetMaxPcieLinkWidth}. */
    int maxPcieWidth(int device);

    /** {@code nvmlDeviceGetCurrPcieLinkGeneration}; may be below max while the GPU idles. */
    int currentPcieGeneration(int device);

    /** {@code nvmlDeviceGetCurrPcieLinkWidth}. */
    int currentPcieWidth(int device);

    /** {@code nvmlDeviceGetCpuAffinity}: a CPU bitmask, 64 CPUs per element, CPU 0 in bit 0 of element 0. */
    long[] cpuAffinity(int device, int words);

    /** {@code nvmlDeviceGetNvLinkCapability(NVML_NVLINK_CAP_P2P_SUPPORTED)}. */
    boolean nvLinkP2pSupported(int device, int link);

    /** Whether the link is up: {@code nvmlDeviceGetNvLinkState}, or field {@code NVML_FI_DEV_NVLINK_GET_STATE} where that is what works. */
    boolean nvLinkActive(int device, int link);

    /** {@code nvmlDeviceGetNvLinkVersion}: {@code nvmlNvlinkVersion_t}, 1 for NVLink 1.0 up to 7 for 5.0. */
    int nvLinkVersion(int device, int link);

    /** {@code nvmlDeviceGetNvLinkRemotePciInfo_v2}: the bus id at the other end, possibly empty in VMs. */
    String nvLinkRemoteBusId(int device, int link);

    /** {@code nvmlDeviceGetNvLinkRemoteDeviceType}: 0 GPU, 1 IBM NPU, 2 switch, 255 unknown. */
    int nvLinkRemoteDeviceType(int device, int link);

    /** {@code nvmlDeviceGetP2PStatus}: {@code nvmlGpuP2PStatus_t} for capability READ (0) or WRITE (1). */
    int p2pStatus(int device, int peer, int capability);
}
