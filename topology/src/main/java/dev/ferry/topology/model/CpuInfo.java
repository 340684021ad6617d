package dev.ferry.topology.model;

import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * The host CPU, which sets the inter-socket bandwidth of SYS paths (as in NCCL's topology).
 *
 * @param vendor the cpuid vendor string, e.g. {@code GenuineIntel}, {@code AuthenticAMD}; empty when unknown
 * @param arch {@code x86_64}, {@code aarch64}, {@code ppc64le}; empty when unknown
 * @param family the cpuid family, when known
 * @param model the cpuid model, when known
 */
public record CpuInfo(String vendor, String arch, OptionalInt family, OptionalInt model)
{
    public CpuInfo
    {
        requireNonNull(vendor, "vendor is null");
        requireNonNull(arch, "arch is null");
        requireNonNull(family, "family is null");
        requireNonNull(model, "model is null");
    }
}
