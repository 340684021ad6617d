package dev.ferry.topology.route;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.KernelFact;
import dev.ferry.topology.model.KernelFacts;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.NvmeDrive;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.PciAddress;
import dev.ferry.topology.model.PcieLink;
import dev.ferry.topology.model.PeerMemory;
import dev.ferry.topology.model.Presence;
import dev.ferry.topology.model.Relation;
import dev.ferry.topology.probe.mount.FileLocation;
import dev.ferry.topology.probe.mount.FilePlacementProbe;
import dev.ferry.topology.probe.mount.TestingStorageMachine;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The file rule judging what {@link FilePlacementProbe} found on {@link TestingStorageMachine}, storage side and GPU side. */
class TestFileRule
{
    private static final RoutePolicy POLICY = new RoutePolicy(RoutePolicyConfig.defaults());

    // Only read by the tests, so built once
    @TempDir
    static Path machine;

    private static FilePlacementProbe probe;

    @BeforeAll
    static void buildMachine()
            throws IOException
    {
        probe = TestingStorageMachine.build(machine);
    }

    @Test
    void ext4OrXfsStraightOnPcieNvmeIsFitForGds()
    {
        assertEquals(List.of(), obstacles("/ferry-fixture/direct/part-0.parquet"));
        assertEquals(List.of(), obstacles("/ferry-fixture/raw data/x.parquet"));
        assertEquals(List.of(), obstacles("/ferry-fixture/multipath/x"));
    }

    @Test
    void everyStorageObstacleIsNamed()
    {
        assertEquals(List.of(
                "filesystem tmpfs on /ferry-fixture/raw is not ext4 or xfs",
                "no block device behind /ferry-fixture/raw (device 0:30, source tmpfs)"), obstacles("/ferry-fixture/raw/x.parquet"));
        assertEquals(List.of("on dm-0 (vg0-data): device-mapper (LVM, dm-crypt or multipath), not directly on NVMe"),
                obstacles("/ferry-fixture/lvm/table/x.parquet"));
        assertEquals(List.of("ext4 mounted data=journal; cuFile needs data=ordered"), obstacles("/ferry-fixture/journal/x"));

        List<String> nfs = obstacles("/ferry-fixture/nfs/x");
        assertEquals(1, nfs.size());
        assertTrue(nfs.get(0).startsWith("network or FUSE filesystem nfs4"), nfs.toString());

        assertEquals(List.of(
                "filesystem squashfs on /ferry-fixture/loop is not ext4 or xfs",
                "on loop0 (backed by /var/lib/snapd/snaps/core.snap): loop device, not directly on NVMe"), obstacles("/ferry-fixture/loop/x"));
        assertEquals(List.of("on sda1, which is not an NVMe namespace"), obstacles("/ferry-fixture/sata/x"));
        assertEquals(List.of("on nvme2n1 through nvme2 with transport tcp: not a local PCIe NVMe drive"), obstacles("/ferry-fixture/fabric/x"));
        assertEquals(List.of("on md127: md software RAID, not directly on NVMe"), obstacles("/ferry-fixture/raid/x"));
    }

    @Test
    void statedPlacementsAreJudgedByTheSameRules()
    {
        assertEquals(List.of("on bcache0: stacked on nvme0n1, not directly on NVMe"),
                POLICY.storageObstacles(new FilePlacement("/c/x", "/c", "xfs", List.of(), List.of("bcache0", "nvme0n1"), Optional.of("nvme0"))));
        assertEquals(List.of("on dm-0: device-mapper (LVM, dm-crypt or multipath), not directly on NVMe"),
                POLICY.storageObstacles(new FilePlacement("/c/x", "/c", "xfs", List.of(), List.of("dm-0", "nvme0n1p1"), Optional.of("nvme0"))));
        assertEquals(List.of("filesystem btrfs on /c is not ext4 or xfs", "no block device behind /c (source none)"),
                POLICY.storageObstacles(new FilePlacement("/c/x", "/c", "btrfs", List.of(), List.of(), Optional.empty())));
    }

    @Test
    void theGpuSideDecidesBetweenGdsAndBounce()
    {
        NodeTopology node = node(new KernelFact(Presence.PRESENT, "test"));
        RouteDecision direct = POLICY.gpuToFile(node, Optional.of("GPU0"), placement("/ferry-fixture/direct/part-0.parquet"), FileConsumer.DEVICE);
        assertEquals(Route.GDS, direct.route());
        assertEquals("PIX", direct.path());
        assertEquals(List.of(), direct.vetoes());
        assertTrue(direct.notes().contains("ext4 without a data= option: the default, data=ordered, assumed"), direct.notes().toString());
        assertEquals(Optional.of("PIX from sysfs, PCIe Gen4 x4: both directly below 0000:00:01.0: a single PCIe switch"), direct.pathDetail());
        assertEquals("spark.ferry.route.gdsLevel=PXB (default), spark.ferry.route.gdsFilesystems=ext4,xfs (default)", direct.threshold());

        RouteDecision far = POLICY.gpuToFile(node, Optional.of("GPU0"), placement("/ferry-fixture/raw data/x"), FileConsumer.DEVICE);
        assertEquals(Route.BOUNCE, far.route());
        assertEquals(List.of("path SYS between GPU0 and nvme1 is beyond spark.ferry.route.gdsLevel=PXB (default)"), far.vetoes());

        RouteDecision lvm = POLICY.gpuToFile(node, Optional.of("GPU0"), placement("/ferry-fixture/lvm/x"), FileConsumer.DEVICE);
        assertEquals(Route.BOUNCE, lvm.route());
        assertEquals(obstacles("/ferry-fixture/lvm/x"), lvm.vetoes());
        assertEquals(Route.GDS, lvm.runnerUp().orElseThrow().route());

        RouteDecision fabric = POLICY.gpuToFile(node, Optional.of("GPU0"), placement("/ferry-fixture/fabric/x"), FileConsumer.DEVICE);
        assertEquals(List.of("on nvme2n1 through nvme2 with transport tcp: not a local PCIe NVMe drive", "no relation known between GPU0 and nvme2"),
                fabric.vetoes());

        RouteDecision compat = POLICY.gpuToFile(node(new KernelFact(Presence.ABSENT, "no /sys/module/nvidia_fs")), Optional.of("GPU0"),
                placement("/ferry-fixture/direct/x"), FileConsumer.DEVICE);
        assertEquals(List.of("cuFile compat mode only: nvidia_fs (or P2PDMA support) absent: no /sys/module/nvidia_fs"), compat.vetoes());
    }

    @Test
    void aCpuConsumerReadsOnHostEvenNextToAGdsCapableGpu()
    {
        NodeTopology node = node(new KernelFact(Presence.PRESENT, "test"));
        RouteDecision cpu = POLICY.gpuToFile(node, Optional.of("GPU0"), placement("/ferry-fixture/direct/part-0.parquet"), FileConsumer.CPU);
        assertEquals(Route.HOST, cpu.route());
        assertEquals("file: CPU consumer, host I/O (a GPU route would cost two PCIe crossings, H->D then D->H)", cpu.rule());
        assertEquals("/ferry-fixture/direct/part-0.parquet: assumed a CPU consumer (decode on the host): plain host I/O, no PCIe crossing; "
                + "a device consumer on GPU0 would read on GDS", cpu.reason());
        RunnerUp given = cpu.runnerUp().orElseThrow();
        assertEquals(Route.GDS, given.route());
        assertTrue(given.whyNot().contains("two PCIe crossings"), given.whyNot());

        RouteDecision bounce = POLICY.gpuToFile(node, Optional.of("GPU0"), placement("/ferry-fixture/lvm/x"), FileConsumer.CPU);
        assertEquals(Route.HOST, bounce.route());
        assertEquals(Route.BOUNCE, bounce.runnerUp().orElseThrow().route());

        // A GPU the topology does not know (the simulated backend's) does not matter to a CPU consumer
        RouteDecision unknown = POLICY.gpuToFile(node, Optional.of("GPU7"), placement("/ferry-fixture/direct/x"), FileConsumer.CPU);
        assertEquals(Route.HOST, unknown.route());
        assertEquals(Optional.empty(), unknown.runnerUp());

        RouteDecision device = POLICY.gpuToFile(node, Optional.of("GPU0"), placement("/ferry-fixture/direct/part-0.parquet"), FileConsumer.DEVICE);
        assertTrue(device.reason().endsWith("; assumed a device consumer (batches kept in GPU memory)"), device.reason());
    }

    @Test
    void withoutAGpuTheStorageVerdictIsANote()
    {
        NodeTopology node = node(new KernelFact(Presence.PRESENT, "test"));
        RouteDecision sata = POLICY.gpuToFile(node, Optional.empty(), placement("/ferry-fixture/sata/x"), FileConsumer.CPU);
        assertEquals(Route.HOST, sata.route());
        assertEquals(List.of(), sata.vetoes());
        assertEquals(List.of("ext4 without a data= option: the default, data=ordered, assumed",
                "GDS would be ruled out with a GPU too: on sda1, which is not an NVMe namespace"), sata.notes());
        assertEquals("/ferry-fixture/sata/x: no GPU involved, plain host I/O (GDS would be ruled out anyway: on sda1, which is not an NVMe namespace); "
                + "assumed a CPU consumer (decode on the host)", sata.reason());
        assertEquals("/ferry-fixture/direct/x: no GPU involved, plain host I/O; assumed a CPU consumer (decode on the host)",
                POLICY.gpuToFile(node, Optional.empty(), placement("/ferry-fixture/direct/x"), FileConsumer.CPU).reason());
    }

    @Test
    void allowedFilesystemsAreConfigurable()
    {
        RoutePolicy xfsOnly = new RoutePolicy(RoutePolicyConfig.from(new MapConfigSource(Map.of("spark.ferry.route.gdsFilesystems", "XFS"))));
        assertEquals(List.of("filesystem ext4 on / is not xfs"), xfsOnly.storageObstacles(placement("/ferry-fixture/direct/x")));
        RouteDecision decision = xfsOnly.gpuToFile(node(new KernelFact(Presence.PRESENT, "test")), Optional.of("GPU0"), placement("/ferry-fixture/direct/x"), FileConsumer.DEVICE);
        assertEquals(Route.BOUNCE, decision.route());
        assertTrue(decision.threshold().contains("spark.ferry.route.gdsFilesystems=XFS (set)"), decision.threshold());

        RoutePolicy three = new RoutePolicy(RoutePolicyConfig.from(new MapConfigSource(Map.of("spark.ferry.route.gdsFilesystems", "ext4, xfs,btrfs"))));
        assertEquals(List.of("filesystem tmpfs on /ferry-fixture/raw is not ext4, xfs or btrfs", "no block device behind /ferry-fixture/raw (device 0:30, source tmpfs)"),
                three.storageObstacles(placement("/ferry-fixture/raw/x")));
    }

    @Test
    void aDirectoryOfThisMachineWithoutABlockDeviceIsNeverFitForGds()
    {
        FileLocation location = FilePlacementProbe.localMachine().locate(Path.of("").toAbsolutePath());
        if (location.device().isEmpty()) {
            assertFalse(POLICY.storageObstacles(location.placement()).isEmpty());
        }
    }

    private static FilePlacement placement(String path)
    {
        return probe.locate(Path.of(path)).placement();
    }

    private static List<String> obstacles(String path)
    {
        return POLICY.storageObstacles(placement(path));
    }

    /** GPU0 shares a switch with nvme0 and nvme3; nvme1 is across the sockets; nvme2 is NVMe over TCP. */
    private static NodeTopology node(KernelFact nvidiaFs)
    {
        return NodeTopology.builder("storage")
                .gpu(Gpu.builder(0).computeCapability("9.0").numaNode(0).build())
                .nvme(new NvmeDrive("nvme0", Optional.of(PciAddress.parse("0000:05:00.0")), "pcie", List.of("nvme0n1"), OptionalInt.of(0)))
                .nvme(new NvmeDrive("nvme1", Optional.of(PciAddress.parse("0000:06:00.0")), "pcie", List.of("nvme1n1"), OptionalInt.of(1)))
                .nvme(new NvmeDrive("nvme2", Optional.empty(), "tcp", List.of("nvme2n1"), OptionalInt.empty()))
                .nvme(new NvmeDrive("nvme3", Optional.of(PciAddress.parse("0000:07:00.0")), "pcie", List.of("nvme3n1"), OptionalInt.of(0)))
                .relation(new Relation("GPU0", "nvme0", PathClass.PIX, 0, Optional.of(new PcieLink(4, 4)), "sysfs")
                        .withDetail("both directly below 0000:00:01.0: a single PCIe switch"))
                .relation(Relation.pcie("GPU0", "nvme1", PathClass.SYS, "sysfs"))
                .relation(Relation.pcie("GPU0", "nvme3", PathClass.PIX, "sysfs"))
                .kernelFacts(new KernelFacts(PeerMemory.present("nvidia_peermem", "test"), nvidiaFs, new KernelFact(Presence.ABSENT, "test")))
                .build();
    }
}
