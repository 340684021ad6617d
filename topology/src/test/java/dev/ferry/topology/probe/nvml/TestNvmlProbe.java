package dev.ferry.topology.probe.nvml;

import dev.ferry.topology.model.P2pState;
import dev.ferry.topology.model.P2pStatus;
import dev.ferry.topology.model.PciAddress;
import dev.ferry.topology.model.PcieLink;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestNvmlProbe
{
    @Test
    void nvSwitchBoxHasEighteenLinksPerGpuAndP2pEverywhere()
    {
        TestingNvmlLibrary library = TestingNvmlLibrary.hgxH100();
        NvmlProbeResult result = NvmlProbe.probe(library);
        assertTrue(result.report().ran(), result.report().detail());
        NvmlSnapshot snapshot = result.snapshot().orElseThrow();
        assertEquals("550.54.15", snapshot.driverVersion());
        assertEquals(8, snapshot.gpus().size());
        NvmlGpu first = snapshot.gpus().get(0);
        assertEquals(Optional.of(PciAddress.parse("0000:18:00.0")), first.pci(), "NVML's 8-digit upper-case bus id normalised");
        assertEquals(Optional.of("9.0"), first.computeCapability());
        assertEquals(new PcieLink(5, 16), first.maxLink());
        assertEquals(new PcieLink(1, 16), first.currentLink());
        assertEquals("0-47", first.cpuAffinity());
        assertEquals("48-95", snapshot.gpus().get(7).cpuAffinity());
        for (NvmlGpu gpu : snapshot.gpus()) {
            assertEquals(18, gpu.nvLinks().size());
            assertEquals(18, gpu.switchLinkCount());
            assertTrue(gpu.nvLinks().stream().allMatch(link -> link.version() == 6 && link.endpoint() == NvLinkEndpoint.NVSWITCH));
        }
        assertEquals(18, snapshot.nvLinkCount(first, snapshot.gpus().get(5)));
        assertEquals(28, snapshot.p2pStatuses().size());
        assertTrue(snapshot.p2pStatuses().stream().allMatch(P2pStatus::bothOk));
        assertEquals(IntStream.range(0, 18).boxed().collect(Collectors.toSet()), library.linkIndexesProbed(), "sm90 probes 18 links, like NCCL");
        assertTrue(result.report().detail().startsWith("8 GPUs, driver 550.54.15, 144 active NVLinks"), result.report().detail());
    }

    @Test
    void workstationPairKeepsNvmlsRefusalWithItsCode()
    {
        TestingNvmlLibrary library = TestingNvmlLibrary.workstationWithoutP2p();
        NvmlSnapshot snapshot = NvmlProbe.probe(library).snapshot().orElseThrow();
        assertEquals(2, snapshot.gpus().size());
        assertTrue(snapshot.gpus().stream().allMatch(gpu -> gpu.nvLinks().isEmpty()));
        assertEquals(0, snapshot.nvLinkCount(snapshot.gpus().get(0), snapshot.gpus().get(1)));
        assertEquals(IntStream.range(0, 12).boxed().collect(Collectors.toSet()), library.linkIndexesProbed(), "sm86 probes 12 links; all answer INVALID_ARGUMENT");
        P2pStatus status = snapshot.p2pStatuses().get(0);
        assertEquals("GPU0", status.a());
        assertEquals("GPU1", status.b());
        assertFalse(status.bothOk());
        assertEquals(P2pState.NOT_SUPPORTED, status.read().state());
        assertEquals(OptionalInt.of(2), status.read().nvmlCode());
        assertEquals("NVML_P2P_STATUS_GPU_NOT_SUPPORTED", status.read().detail());
        assertEquals("NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED", status.write().detail());
        assertEquals("", snapshot.gpus().get(0).cpuAffinity());
        assertTrue(snapshot.warnings().isEmpty(), "NOT_SUPPORTED is an answer, not a failure: " + snapshot.warnings());
    }

    @Test
    void directLinksAreCountedPerPeerAndUnknownRemoteTypesResolvedByAddress()
    {
        // DGX-1 style: GPU0 has two links to GPU1, one to GPU2, and a link to GPU3 that is down
        TestingNvmlLibrary library = new TestingNvmlLibrary("470.82.01");
        library.gpu("Tesla V100-SXM2-32GB", "00000000:06:00.0", 7, 0)
                .link(0, "00000000:07:00.0", NvmlConstants.NVML_NVLINK_DEVICE_TYPE_GPU, 2)
                .link(1, "00000000:07:00.0", NvmlConstants.NVML_NVLINK_DEVICE_TYPE_GPU, 2)
                .link(2, "00000000:0A:00.0", NvmlConstants.NVML_NVLINK_DEVICE_TYPE_GPU, 2)
                .inactiveLink(3);
        library.gpu("Tesla V100-SXM2-32GB", "00000000:07:00.0", 7, 0)
                .link(0, "00000000:06:00.0", NvmlConstants.NVML_NVLINK_DEVICE_TYPE_GPU, 2)
                .link(1, "00000000:06:00.0", NvmlConstants.NVML_NVLINK_DEVICE_TYPE_GPU, 2);
        library.gpu("Tesla V100-SXM2-32GB", "00000000:0A:00.0", 7, 0)
                .link(2, "00000000:06:00.0", NvmlConstants.NVML_NVLINK_DEVICE_TYPE_GPU, 2);
        library.gpu("Tesla V100-SXM2-32GB", "00000000:0B:00.0", 7, 0);
        // Older drivers cannot name the remote type; the address says it is a GPU
        library.fail("nvLinkRemoteDeviceType", TestingNvmlLibrary.NVML_ERROR_NOT_SUPPORTED);
        NvmlSnapshot snapshot = NvmlProbe.probe(library).snapshot().orElseThrow();
        List<NvmlGpu> gpus = snapshot.gpus();
        assertEquals(3, gpus.get(0).nvLinks().size(), "the inactive link is left out");
        assertTrue(gpus.get(0).nvLinks().stream().allMatch(link -> link.endpoint() == NvLinkEndpoint.GPU));
        assertEquals(2, snapshot.nvLinkCount(gpus.get(0), gpus.get(1)));
        assertEquals(2, snapshot.nvLinkCount(gpus.get(1), gpus.get(0)));
        assertEquals(1, snapshot.nvLinkCount(gpus.get(0), gpus.get(2)));
        assertEquals(0, snapshot.nvLinkCount(gpus.get(0), gpus.get(3)));
        assertEquals(0, snapshot.nvLinkCount(gpus.get(1), gpus.get(2)));
        assertEquals(OptionalInt.of(NvmlConstants.NVML_NVLINK_VERSION_2_0), snapshot.nvLinkVersion(gpus.get(0), gpus.get(1)));
        assertEquals(Optional.of("2.0"), NvmlConstants.nvLinkVersionName(snapshot.nvLinkVersion(gpus.get(0), gpus.get(1)).getAsInt()));
        assertEquals("NVLinks 2 cabled directly", snapshot.nvLinkDetail(gpus.get(0), gpus.get(1)));
        assertEquals(Set.of(0, 1, 2, 3, 4, 5), library.linkIndexesProbed(), "sm70 probes 6 links");
    }

    @Test
    void driversOlderThanR450AreNotAskedForTheRemoteDeviceType()
    {
        TestingNvmlLibrary library = new TestingNvmlLibrary("418.87.01");
        library.gpu("Tesla V100-SXM2-16GB", "00000000:06:00.0", 7, 0).link(0, "00000000:07:00.0", NvmlConstants.NVML_NVLINK_DEVICE_TYPE_GPU, 2);
        library.gpu("Tesla V100-SXM2-16GB", "00000000:07:00.0", 7, 0).link(0, "00000000:06:00.0", NvmlConstants.NVML_NVLINK_DEVICE_TYPE_GPU, 2);
        NvmlSnapshot snapshot = NvmlProbe.probe(library).snapshot().orElseThrow();
        assertEquals(0, library.calls("nvLinkRemoteDeviceType"));
        assertEquals(NvLinkEndpoint.GPU, snapshot.gpus().get(0).nvLinks().get(0).endpoint(), "the remote address names a GPU");
        assertEquals(1, snapshot.nvLinkCount(snapshot.gpus().get(0), snapshot.gpus().get(1)));

        TestingNvmlLibrary current = TestingNvmlLibrary.hgxH100();
        NvmlProbe.probe(current);
        assertEquals(8 * 18, current.calls("nvLinkRemoteDeviceType"));
        assertEquals(550, NvmlProbe.driverMajor("550.54.15"));
        assertEquals(0, NvmlProbe.driverMajor(""));
    }

    @Test
    void linksWithoutARemoteAddressEndAtHiddenSwitches()
    {
        TestingNvmlLibrary library = new TestingNvmlLibrary("535.129.03");
        for (int index = 0; index < 2; index++) {
            TestingNvmlLibrary.TestingGpu gpu = library.gpu("NVIDIA A100-SXM4-80GB", "00000001:00:00.0".replace("1:", (index + 1) + ":"), 8, 0);
            for (int link = 0; link < 12; link++) {
                gpu.link(link, "", NvmlConstants.NVML_NVLINK_DEVICE_TYPE_UNKNOWN, 4);
            }
        }
        NvmlSnapshot snapshot = NvmlProbe.probe(library).snapshot().orElseThrow();
        NvmlGpu first = snapshot.gpus().get(0);
        assertEquals(Optional.of(PciAddress.parse("0001:00:00.0")), first.pci());
        assertTrue(first.nvLinks().stream().allMatch(link -> link.remote().isEmpty() && link.endpoint() == NvLinkEndpoint.NVSWITCH));
        assertEquals(12, snapshot.nvLinkCount(first, snapshot.gpus().get(1)));
        assertEquals(OptionalInt.of(NvmlConstants.NVML_NVLINK_VERSION_3_0), snapshot.nvLinkVersion(first, snapshot.gpus().get(1)));
        assertEquals("NVLinks 12 through NVSwitches (GPU0 has 12 switch links, GPU1 12)", snapshot.nvLinkDetail(first, snapshot.gpus().get(1)));
        // A version NVML would not give is unknown, not guessed
        library.fail("nvLinkVersion", TestingNvmlLibrary.NVML_ERROR_NOT_SUPPORTED);
        NvmlSnapshot silent = NvmlProbe.probe(library).snapshot().orElseThrow();
        assertEquals(OptionalInt.empty(), silent.nvLinkVersion(silent.gpus().get(0), silent.gpus().get(1)));
        assertEquals(Optional.empty(), NvmlConstants.nvLinkVersionName(NvmlConstants.NVML_NVLINK_VERSION_INVALID));
    }

    @Test
    void failingAttributeCallsBecomeWarningsButFailingCountMakesNvmlUnavailable()
    {
        TestingNvmlLibrary partial = TestingNvmlLibrary.workstationWithoutP2p().fail("uuid", TestingNvmlLibrary.NVML_ERROR_UNKNOWN);
        NvmlProbeResult result = NvmlProbe.probe(partial);
        NvmlSnapshot snapshot = result.snapshot().orElseThrow();
        assertEquals(Optional.empty(), snapshot.gpus().get(0).uuid());
        assertEquals(2, snapshot.warnings().size(), snapshot.warnings().toString());
        assertTrue(snapshot.warnings().get(0).startsWith("GPU0 UUID: uuid failed"), snapshot.warnings().get(0));
        assertTrue(result.report().detail().contains("2 calls failed"), result.report().detail());

        NvmlProbeResult broken = NvmlProbe.probe(TestingNvmlLibrary.workstationWithoutP2p().fail("deviceCount", TestingNvmlLibrary.NVML_ERROR_UNKNOWN));
        assertTrue(broken.snapshot().isEmpty());
        assertFalse(broken.report().ran());
        assertEquals("NVML unavailable: deviceCount failed: Unknown Error (999)", broken.report().detail());
    }

    @Test
    void linkCountsToProbeFollowNccl()
    {
        assertEquals(0, NvmlProbe.nvLinksToProbe(5, 2));
        assertEquals(4, NvmlProbe.nvLinksToProbe(6, 0));
        assertEquals(6, NvmlProbe.nvLinksToProbe(7, 0));
        assertEquals(6, NvmlProbe.nvLinksToProbe(7, 5));
        assertEquals(12, NvmlProbe.nvLinksToProbe(8, 0));
        assertEquals(12, NvmlProbe.nvLinksToProbe(8, 9));
        assertEquals(18, NvmlProbe.nvLinksToProbe(9, 0));
        assertEquals(18, NvmlProbe.nvLinksToProbe(10, 0));
    }

    @Test
    void cpuMasksBecomeCpuLists()
    {
        assertEquals("", CpuMasks.toCpuList(new long[2]));
        assertEquals("0-23,48-71", CpuMasks.toCpuList(new long[] {0xffff000000ffffffL, 0xffL}));
        assertEquals("0,2,63-64", CpuMasks.toCpuList(new long[] {0x8000000000000005L, 0x1L}));
    }
}
