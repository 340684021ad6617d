package dev.ferry.topology.probe.nvml;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A hand-written NVML: GPUs, links and P2P answers set up by the test, errors where NVML would give
 * them (a link the GPU does not have answers {@code NVML_ERROR_INVALID_ARGUMENT}).
 */
public final class TestingNvmlLibrary
        implements NvmlLibrary
{
    public static final List<String> HGX_H100_BUS_IDS = List.of(
            "00000000:18:00.0", "00000000:2A:00.0", "00000000:3A:00.0", "00000000:5D:00.0",
            "00000000:9A:00.0", "00000000:AB:00.0", "00000000:BA:00.0", "00000000:DB:00.0");
    public static final List<String> HGX_H100_SWITCH_BUS_IDS = List.of("00000000:05:00.0", "00000000:06:00.0", "00000000:07:00.0", "00000000:08:00.0");

    public static final int NVML_ERROR_INVALID_ARGUMENT = 2;
    public static final int NVML_ERROR_NOT_SUPPORTED = 3;
    public static final int NVML_ERROR_UNKNOWN = 999;

    private final String driverVersion;
    private final List<TestingGpu> gpus = new ArrayList<>();
    private final Map<String, Integer> p2p = new HashMap<>();
    private final Map<String, Integer> failures = new HashMap<>();
    private final Set<Integer> linkIndexesProbed = new HashSet<>();
    private final Map<String, Integer> calls = new HashMap<>();

    /** An HGX H100 as NVML shows it: 8 GPUs, 18 NVLink 4.0 links each to four NVSwitches; CPUs 0-47 on node 0, 48-95 on node 1. */
    public static TestingNvmlLibrary hgxH100()
    {
        TestingNvmlLibrary library = new TestingNvmlLibrary("550.54.15");
        for (int index = 0; index < HGX_H100_BUS_IDS.size(); index++) {
            TestingGpu gpu = library.gpu("NVIDIA H100 80GB HBM3", HGX_H100_BUS_IDS.get(index), 9, 0)
                    .maxGeneration(5)
                    .affinity(index < 4 ? new long[] {0xffffffffffffL} : new long[] {0xffff000000000000L, 0xffffffffL});
            for (int link = 0; link < 18; link++) {
                gpu.link(link, HGX_H100_SWITCH_BUS_IDS.get(link % 4), NvmlConstants.NVML_NVLINK_DEVICE_TYPE_SWITCH, 6);
            }
        }
        return library;
    }

    /** A workstation: two GPUs without NVLink, NVML refusing peer access and CPU affinity. */
    public static TestingNvmlLibrary workstationWithoutP2p()
    {
        TestingNvmlLibrary library = new TestingNvmlLibrary("550.54.15");
        library.gpu("NVIDIA RTX A6000", "00000000:01:00.0", 8, 6);
        library.gpu("NVIDIA RTX A6000", "00000000:21:00.0", 8, 6);
        library.p2p(0, 1, NvmlConstants.NVML_P2P_CAPS_INDEX_READ, NvmlConstants.NVML_P2P_STATUS_GPU_NOT_SUPPORTED);
        library.p2p(0, 1, NvmlConstants.NVML_P2P_CAPS_INDEX_WRITE, NvmlConstants.NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED);
        library.fail("cpuAffinity", NVML_ERROR_NOT_SUPPORTED);
        return library;
    }

    public TestingNvmlLibrary(String driverVersion)
    {
        this.driverVersion = driverVersion;
    }

    public TestingGpu gpu(String name, String busId, int major, int minor)
    {
        TestingGpu gpu = new TestingGpu(gpus.size(), name, busId, major, minor);
        gpus.add(gpu);
        return gpu;
    }

    /** The status NVML gives for {@code (device, peer)} in either order. */
    public TestingNvmlLibrary p2p(int device, int peer, int capability, int status)
    {
        p2p.put(Math.min(device, peer) + "/" + Math.max(device, peer) + "/" + capability, status);
        return this;
    }

    /** Every call of {@code function} fails with {@code code}. */
    public TestingNvmlLibrary fail(String function, int code)
    {
        failures.put(function, code);
        return this;
    }

    /** How often {@code function} was called. */
    public int calls(String function)
    {
        return calls.getOrDefault(function, 0);
    }

    public Set<Integer> linkIndexesProbed()
    {
        return linkIndexesProbed;
    }

    @Override
    public String driverVersion()
    {
        check("driverVersion");
        return driverVersion;
    }

    @Override
    public int deviceCount()
    {
        check("deviceCount");
        return gpus.size();
    }

    @Override
    public String name(int device)
    {
        check("name");
        return gpu(device).name;
    }

    @Override
    public String uuid(int device)
    {
        check("uuid");
        return String.format("GPU-%08x-0000-0000-0000-%012x", device, device);
    }

    @Override
    public String pciBusId(int device)
    {
        check("pciBusId");
        return gpu(device).busId;
    }

    @Override
    public int[] computeCapability(int device)
    {
        check("computeCapability");
        return new int[] {gpu(device).major, gpu(device).minor};
    }

    @Override
    public int maxPcieGeneration(int device)
    {
        check("maxPcieGeneration");
        return gpu(device).maxGeneration;
    }

    @Override
    public int maxPcieWidth(int device)
    {
        check("maxPcieWidth");
        return 16;
    }

    @Override
    public int currentPcieGeneration(int device)
    {
        check("currentPcieGeneration");
        return 1;
    }

    @Override
    public int currentPcieWidth(int device)
    {
        check("currentPcieWidth");
        return 16;
    }

    @Override
    public long[] cpuAffinity(int device, int words)
    {
        check("cpuAffinity");
        long[] mask = new long[words];
        System.arraycopy(gpu(device).affinity, 0, mask, 0, Math.min(words, gpu(device).affinity.length));
        return mask;
    }

    @Override
    public boolean nvLinkP2pSupported(int device, int link)
    {
        check("nvLinkP2pSupported");
        linkIndexesProbed.add(link);
        TestingLink value = link(device, link);
        return value.p2pSupported;
    }

    @Override
    public boolean nvLinkActive(int device, int link)
    {
        check("nvLinkActive");
        return link(device, link).active;
    }

    @Override
    public int nvLinkVersion(int device, int link)
    {
        check("nvLinkVersion");
        return link(device, link).version;
    }

    @Override
    public String nvLinkRemoteBusId(int device, int link)
    {
        check("nvLinkRemoteBusId");
        return link(device, link).remoteBusId;
    }

    @Override
    public int nvLinkRemoteDeviceType(int device, int link)
    {
        check("nvLinkRemoteDeviceType");
        return link(device, link).remoteType;
    }

    @Override
    public int p2pStatus(int device, int peer, int capability)
    {
        check("p2pStatus");
        return p2p.getOrDefault(Math.min(device, peer) + "/" + Math.max(device, peer) + "/" + capability, NvmlConstants.NVML_P2P_STATUS_OK);
    }

    private TestingGpu gpu(int device)
    {
        if (device < 0 || device >= gpus.size()) {
            throw new NvmlCallException("handle", NVML_ERROR_INVALID_ARGUMENT, "Invalid Argument");
        }
        return gpus.get(device);
    }

    private TestingLink link(int device, int link)
    {
        TestingLink value = gpu(device).links.get(link);
        if (value == null) {
            throw new NvmlCallException("nvLink", NVML_ERROR_INVALID_ARGUMENT, "Invalid Argument");
        }
        return value;
    }

    private void check(String function)
    {
        calls.merge(function, 1, Integer::sum);
        Integer code = failures.get(function);
        if (code != null) {
            throw new NvmlCallException(function, code, code == NVML_ERROR_NOT_SUPPORTED ? "Not Supported" : "Unknown Error");
        }
    }

    public static final class TestingGpu
    {
        private final int index;
        private final String name;
        private final String busId;
        private final int major;
        private final int minor;
        private final Map<Integer, TestingLink> links = new HashMap<>();
        private long[] affinity = new long[0];
        private int maxGeneration = 4;

        private TestingGpu(int index, String name, String busId, int major, int minor)
        {
            this.index = index;
            this.name = name;
            this.busId = busId;
            this.major = major;
            this.minor = minor;
        }

        public int index()
        {
            return index;
        }

        public TestingGpu affinity(long... affinity)
        {
            this.affinity = affinity;
            return this;
        }

        public TestingGpu maxGeneration(int generation)
        {
            this.maxGeneration = generation;
            return this;
        }

        /** An active, P2P-capable link. */
        public TestingGpu link(int link, String remoteBusId, int remoteType, int version)
        {
            links.put(link, new TestingLink(true, true, version, remoteBusId, remoteType));
            return this;
        }

        /** A link present but down. */
        public TestingGpu inactiveLink(int link)
        {
            links.put(link, new TestingLink(true, false, 4, "", NvmlConstants.NVML_NVLINK_DEVICE_TYPE_UNKNOWN));
            return this;
        }
    }

    private record TestingLink(boolean p2pSupported, boolean active, int version, String remoteBusId, int remoteType) {}
}
