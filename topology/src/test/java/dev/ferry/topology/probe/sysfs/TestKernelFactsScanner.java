package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.KernelFacts;
import dev.ferry.topology.model.Presence;
import dev.ferry.topology.probe.SysfsTreeBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Optional;

import static dev.ferry.topology.probe.SysfsTreeBuilder.CLASS_3D_CONTROLLER;
import static dev.ferry.topology.probe.SysfsTreeBuilder.VENDOR_NVIDIA;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestKernelFactsScanner
{
    @TempDir
    Path temp;

    @Test
    void nothingLoadedMeansEverythingAbsent()
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"));
        KernelFacts facts = new KernelFactsScanner(new SysfsReader(tree.root())).scan();
        assertEquals(Presence.ABSENT, facts.peerMemory().presence());
        assertTrue(facts.peerMemory().evidence().startsWith("nvidia_peermem not loaded"), facts.peerMemory().evidence());
        assertEquals(Presence.ABSENT, facts.nvidiaFs().presence());
        assertEquals(Presence.ABSENT, facts.iommu().presence());
        assertTrue(facts.iommu().evidence().contains("no IOMMU"), facts.iommu().evidence());
    }

    @Test
    void nvidiaPeermemWinsAndItsVersionIsEvidence()
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"))
                .module("nvidia_peermem", "550.54.15")
                .file("kernel/mm/memory_peers/nv_mem/version", "1.3-0")
                .module("nvidia_fs", "2.20.5")
                .module("nvidia", "550.54.15");
        KernelFactsScanner scanner = new KernelFactsScanner(new SysfsReader(tree.root()));
        KernelFacts facts = scanner.scan();
        assertEquals(Presence.PRESENT, facts.peerMemory().presence());
        assertEquals(Optional.of("nvidia_peermem"), facts.peerMemory().mechanism());
        assertTrue(facts.peerMemory().evidence().endsWith("nvidia_peermem/version = 550.54.15"), facts.peerMemory().evidence());
        assertEquals(Presence.PRESENT, facts.nvidiaFs().presence());
        assertEquals(Optional.of("550.54.15"), scanner.nvidiaDriverVersion());
    }

    @Test
    void legacyPeerMemoryClientsAreRecognised()
    {
        SysfsTreeBuilder legacyModule = new SysfsTreeBuilder(temp.resolve("a")).module("nv_peer_mem", null);
        assertEquals(Optional.of("nv_peer_mem"), new KernelFactsScanner(new SysfsReader(legacyModule.root())).peerMemory().mechanism());

        SysfsTreeBuilder memoryPeers = new SysfsTreeBuilder(temp.resolve("b")).file("kernel/mm/memory_peers/nv_mem_nc/version", "1.1");
        assertEquals(Optional.of("memory_peers/nv_mem"), new KernelFactsScanner(new SysfsReader(memoryPeers.root())).peerMemory().mechanism());
    }

    @Test
    void iommuGroupsMeanTranslationUnlessAllArePassthrough()
    {
        SysfsTreeBuilder translated = new SysfsTreeBuilder(temp.resolve("a"));
        translated.pci("pci0000:00/0000:00:01.0/0000:01:00.0", CLASS_3D_CONTROLLER, VENDOR_NVIDIA, 0x2330);
        translated.iommuGroup(7, "DMA-FQ", "0000:01:00.0").iommuGroup(8, null);
        SysfsReader reader = new SysfsReader(translated.root());
        assertEquals(Presence.PRESENT, new KernelFactsScanner(reader).iommu().presence());
        SysfsPciDevice gpu = new PciDeviceScanner(reader).scan().values().iterator().next();
        assertEquals(Optional.of("7"), gpu.iommuGroup());

        SysfsTreeBuilder passthrough = new SysfsTreeBuilder(temp.resolve("b")).iommuGroup(0, "identity").iommuGroup(1, "identity");
        assertEquals(Presence.ABSENT, new KernelFactsScanner(new SysfsReader(passthrough.root())).iommu().presence());
        assertTrue(new KernelFactsScanner(new SysfsReader(passthrough.root())).iommu().evidence().contains("iommu=pt"));
    }
}
