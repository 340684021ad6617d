package dev.ferry.topology.model;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

import java.util.Locale;

/**
 * How two devices in one node are connected, closest first, as {@code nvidia-smi topo -m} names it.
 * <p>
 * NCCL has no {@code NODE}: two devices under different host bridges of one NUMA node both hang off
 * the same CPU node there, so NCCL calls that {@code PHB}. Ferry keeps {@code NODE} for display
 * but compares thresholds through {@link #ncclEquivalent()}, so NCCL-style levels behave as in NCCL.
 */
public enum PathClass
{
    /** The device itself ({@code X}). */
    SELF("X"),
    /** A bonded set of NVLinks, direct or through NVSwitch ({@code NV#}). */
    NVLINK("NV#"),
    /** At most one PCIe bridge or switch. */
    PIX("PIX"),
    /** Several PCIe bridges, without the host bridge. */
    PXB("PXB"),
    /** Through a PCIe host bridge (the CPU). */
    PHB("PHB"),
    /** Between host bridges within one NUMA node (NCCL: PHB). */
    NODE("NODE"),
    /** Across the inter-socket interconnect (QPI/UPI/xGMI); very old drivers print SOC. */
    SYS("SYS");

    private final String label;

    PathClass(String label)
    {
        this.label = label;
    }

    /** The matrix spelling; {@code NV#} for NVLink, whose count lives in the relation. */
    public String label()
    {
        return label;
    }

    /** The class NCCL would use: {@code NODE} becomes {@code PHB}, everything else is itself. */
    public PathClass ncclEquivalent()
    {
        return this == NODE ? PHB : this;
    }

    /** Whether this path is no farther than {@code level}, compared the NCCL way (NODE = PHB). */
    public boolean isWithin(PathClass level)
    {
        return ncclEquivalent().compareTo(level.ncclEquivalent()) <= 0;
    }

    /** Whether {@code cell} is a known matrix token ({@code X}, {@code NV#}, PIX, PXB, PHB, NODE, SYS, SOC). */
    public static boolean isCell(String cell)
    {
        try {
            parseCell(cell);
            return true;
        }
        catch (FerryException e) {
            return false;
        }
    }

    /** Parses one matrix cell: {@code X}, {@code NV12}, {@code PIX}, ..., {@code SOC} (= SYS). */
    public static PathClass parseCell(String cell)
    {
        String token = cell.trim().toUpperCase(Locale.ROOT);
        if (token.equals("X")) {
            return SELF;
        }
        if (token.equals("SOC")) {
            return SYS;
        }
        if (token.startsWith("NV")) {
            nvlinkCount(token);
            return NVLINK;
        }
        for (PathClass value : values()) {
            if (value != SELF && value != NVLINK && value.label.equals(token)) {
                return value;
            }
        }
        throw new FerryException(ErrorCategory.USER_ERROR, "Unknown topology cell '" + cell.trim()
                + "' (expected X, NV#, PIX, PXB, PHB, NODE, SYS or SOC)");
    }

    /** The link count of an {@code NV#} cell, 0 for any other cell. */
    public static int nvlinkCount(String cell)
    {
        String token = cell.trim().toUpperCase(Locale.ROOT);
        if (!token.startsWith("NV")) {
            return 0;
        }
        String digits = token.substring(2);
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit) || digits.length() > 3 || Integer.parseInt(digits) == 0) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Unknown topology cell '" + cell.trim()
                    + "' (NVLink cells are NV followed by a link count, e.g. NV12)");
        }
        return Integer.parseInt(digits);
    }

    /** A level name as used in configuration ({@code PXB}, {@code NVL} for NVLink, {@code LOC} for self). */
    public static PathClass parseLevel(String text)
    {
        String token = text.trim().toUpperCase(Locale.ROOT);
        switch (token) {
            case "LOC":
            case "X":
            case "SELF":
                return SELF;
            case "NVL":
            case "NV":
            case "NVLINK":
                return NVLINK;
            default:
                try {
                    return parseCell(token);
                }
                catch (FerryException e) {
                    throw new IllegalArgumentException("Unknown path level '" + text
                            + "' (expected LOC, NVL, PIX, PXB, PHB, NODE or SYS)", e);
                }
        }
    }
}
