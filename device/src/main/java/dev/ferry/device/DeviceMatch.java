package dev.ferry.device;

import dev.ferry.common.FerryException;
import dev.ferry.topology.model.PciAddress;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Which of a runtime's devices is a given physical GPU. CUDA ordinals follow
 * {@code CUDA_VISIBLE_DEVICES} and, unless {@code CUDA_DEVICE_ORDER=PCI_BUS_ID}, a fastest-first
 * order, while Spark's {@code gpu} addresses and NVML indices count in PCI bus order over all
 * GPUs: only the PCI bus id names the same GPU in both. A device whose bus id is not a PCI address
 * (simulated GPUs by default) can only be matched by index, and the match says so.
 *
 * @param ordinal the runtime's device ordinal
 * @param reason how it was matched, for logs and explain strings
 */
public record DeviceMatch(int ordinal, String reason)
{
    public DeviceMatch
    {
        requireNonNull(reason, "reason is null");
    }

    /**
     * The device for a GPU with PCI address {@code pci} (when known) and NVML/Spark index
     * {@code index}: by bus id when both sides have one; by index only when the runtime's devices
     * carry no PCI bus ids or the GPU's address is unknown. Empty when the bus id is on none of
     * the runtime's devices (the GPU is not visible to this process) or the index is out of range.
     */
    public static Optional<DeviceMatch> find(List<DeviceInfo> devices, Optional<PciAddress> pci, int index)
    {
        boolean devicesHaveBusIds = !devices.isEmpty() && devices.stream().allMatch(device -> busId(device).isPresent());
        if (pci.isPresent() && devicesHaveBusIds) {
            for (DeviceInfo device : devices) {
                if (busId(device).equals(pci)) {
                    return Optional.of(new DeviceMatch(device.ordinal(), "PCI bus id " + pci.get() + " is CUDA device " + device.ordinal()));
                }
            }
            return Optional.empty();
        }
        if (index < 0 || index >= devices.size()) {
            return Optional.empty();
        }
        String why = pci.isEmpty() ? "the GPU's PCI bus id is unknown" : "the runtime's devices carry no PCI bus ids (" + devices.get(index).busId() + ")";
        return Optional.of(new DeviceMatch(index, "by index " + index + ": " + why));
    }

    private static Optional<PciAddress> busId(DeviceInfo device)
    {
        try {
            return Optional.of(PciAddress.parse(device.busId()));
        }
        catch (FerryException e) {
            return Optional.empty();
        }
    }
}
