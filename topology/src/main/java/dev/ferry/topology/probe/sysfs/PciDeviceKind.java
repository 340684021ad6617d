package dev.ferry.topology.probe.sysfs;

/**
 * What a PCI function is, from its class code (the same dictionary NCCL uses, plus NVMe).
 */
public enum PciDeviceKind
{
    /** Base class 0x03 (display): {@code 0x030200} 3D controller, {@code 0x030000} VGA. */
    GPU,
    /** {@code 0x068000}: NVIDIA reports its NVSwitches with this "other bridge" class. */
    NVSWITCH,
    /** Base class 0x02 (network): {@code 0x020000} Ethernet, {@code 0x020700} InfiniBand. */
    NIC,
    /** {@code 0x010802}: NVM Express. */
    NVME,
    /** {@code 0x0604xx}: a PCI-to-PCI bridge, i.e. a root port or a switch port. */
    BRIDGE,
    OTHER;

    public static final int NVIDIA_VENDOR = 0x10de;
    public static final int NVSWITCH_CLASS = 0x068000;
    public static final int NVME_CLASS = 0x010802;

    /** Classifies a 24-bit class code; negative (unknown) is {@link #OTHER}. */
    public static PciDeviceKind ofClass(int classCode)
    {
        if (classCode < 0) {
            return OTHER;
        }
        if (classCode == NVSWITCH_CLASS) {
            return NVSWITCH;
        }
        if (classCode == NVME_CLASS) {
            return NVME;
        }
        int baseClass = classCode >>> 16;
        int subClass = (classCode >>> 8) & 0xff;
        if (baseClass == 0x03) {
            return GPU;
        }
        if (baseClass == 0x02) {
            return NIC;
        }
        if (baseClass == 0x06 && subClass == 0x04) {
            return BRIDGE;
        }
        return OTHER;
    }
}
