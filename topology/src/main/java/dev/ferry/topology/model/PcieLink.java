package dev.ferry.topology.model;

/**
 * A PCIe link's generation and width; 0 means unknown.
 *
 * @param gen 1 to 6 (2.5 to 64 GT/s), 0 when unknown
 * @param width lanes (1 to 32), 0 when unknown
 */
public record PcieLink(int gen, int width)
{
    public PcieLink
    {
        if (gen < 0 || gen > 6) {
            throw new IllegalArgumentException("PCIe generation must be 0 (unknown) to 6, got " + gen);
        }
        if (width < 0 || width > 32) {
            throw new IllegalArgumentException("PCIe width must be 0 (unknown) to 32, got " + width);
        }
    }

    /** From a sysfs speed in GT/s (2.5, 5, 8, 16, 32, 64); an unknown speed gives generation 0. */
    public static PcieLink fromSpeed(double gigaTransfers, int width)
    {
        return new PcieLink(generationOf(gigaTransfers), width);
    }

    public boolean isKnown()
    {
        return gen > 0 && width > 0;
    }

    private static int generationOf(double gigaTransfers)
    {
        double[] speeds = {2.5, 5, 8, 16, 32, 64};
        for (int i = 0; i < speeds.length; i++) {
            if (Math.abs(speeds[i] - gigaTransfers) < 0.01) {
                return i + 1;
            }
        }
        return 0;
    }
}
