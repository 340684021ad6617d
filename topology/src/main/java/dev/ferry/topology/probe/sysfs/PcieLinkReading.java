package dev.ferry.topology.probe.sysfs;

import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PCIe link of one function towards its parent port, as sysfs reports it: the capability
 * ({@code max_link_speed}, {@code max_link_width}) and what was negotiated
 * ({@code current_link_speed}, {@code current_link_width}). A generation or width of 0 means unknown.
 * <p>
 * Speeds are spelled {@code "16.0 GT/s PCIe"} on newer kernels and {@code "16 GT/s"} on 5.6 and older;
 * both map to the same generation.
 */
public record PcieLinkReading(int maxGeneration, int maxWidth, int currentGeneration, int currentWidth)
{
    public static final PcieLinkReading UNKNOWN = new PcieLinkReading(0, 0, 0, 0);

    private static final Pattern SPEED = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*GT/s.*");

    public PcieLinkReading
    {
        if (maxGeneration < 0 || maxWidth < 0 || currentGeneration < 0 || currentWidth < 0) {
            throw new IllegalArgumentException("PCIe link values must not be negative: " + maxGeneration + "/" + maxWidth
                    + "/" + currentGeneration + "/" + currentWidth);
        }
    }

    /** Builds a reading from the four raw attribute texts, any of which may be absent or unparseable. */
    public static PcieLinkReading fromSysfs(Optional<String> maxSpeed, OptionalInt maxWidth, Optional<String> currentSpeed, OptionalInt currentWidth)
    {
        return new PcieLinkReading(
                maxSpeed.map(PcieLinkReading::generationOf).orElse(0),
                sanitizeWidth(maxWidth),
                currentSpeed.map(PcieLinkReading::generationOf).orElse(0),
                sanitizeWidth(currentWidth));
    }

    /**
     * The PCIe generation for a sysfs speed text: 2.5 GT/s is Gen1, 5 Gen2, 8 Gen3, 16 Gen4, 32 Gen5,
     * 64 Gen6, 128 Gen7; 0 for {@code "Unknown"} or anything else.
     */
    public static int generationOf(String speed)
    {
        Matcher matcher = SPEED.matcher(speed.trim().toUpperCase(Locale.ROOT).replace("GT/S", "GT/s"));
        if (!matcher.matches()) {
            return 0;
        }
        double gigaTransfers = Double.parseDouble(matcher.group(1));
        double[] rates = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0, 128.0};
        for (int index = 0; index < rates.length; index++) {
            if (Math.abs(gigaTransfers - rates[index]) < 0.01) {
                return index + 1;
            }
        }
        return 0;
    }

    /**
     * The generation to plan with: the capability when known, since GPUs drop their link speed when
     * idle and raise it again under load (NCCL reads {@code max_link_speed} for the same reason).
     */
    public int effectiveGeneration()
    {
        return maxGeneration > 0 ? maxGeneration : currentGeneration;
    }

    /** The negotiated width when known, else the capability: missing lanes do not come back under load. */
    public int effectiveWidth()
    {
        return currentWidth > 0 ? currentWidth : maxWidth;
    }

    /**
     * Whether the link trained narrower than it can. Only width counts: GPUs lower their link speed when
     * idle to save power, so a slower current speed alone is normal, while a narrower width is a
     * seating or riser problem that stays.
     */
    public boolean isWidthDownTrained()
    {
        return currentWidth > 0 && maxWidth > 0 && currentWidth < maxWidth;
    }

    /** Whether the negotiated speed is below the capability (power saving or a real fault). */
    public boolean isSpeedBelowMax()
    {
        return currentGeneration > 0 && maxGeneration > 0 && currentGeneration < maxGeneration;
    }

    /** The narrower and slower of two ends of one link, field by field, ignoring unknown (0) values. */
    public PcieLinkReading min(PcieLinkReading other)
    {
        return new PcieLinkReading(
                minKnown(maxGeneration, other.maxGeneration),
                minKnown(maxWidth, other.maxWidth),
                minKnown(currentGeneration, other.currentGeneration),
                minKnown(currentWidth, other.currentWidth));
    }

    public boolean isKnown()
    {
        return effectiveGeneration() > 0 && effectiveWidth() > 0;
    }

    @Override
    public String toString()
    {
        if (!isKnown()) {
            return "unknown";
        }
        String text = "Gen" + effectiveGeneration() + " x" + effectiveWidth();
        if (isWidthDownTrained()) {
            return text + " (down-trained from x" + maxWidth + ")";
        }
        return text;
    }

    private static int minKnown(int left, int right)
    {
        if (left == 0) {
            return right;
        }
        if (right == 0) {
            return left;
        }
        return Math.min(left, right);
    }

    // Some virtual and broken devices report width 255 ("unknown" in the link status register)
    private static int sanitizeWidth(OptionalInt width)
    {
        if (width.isEmpty() || width.getAsInt() <= 0 || width.getAsInt() > 32) {
            return 0;
        }
        return width.getAsInt();
    }
}
