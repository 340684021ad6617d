package dev.ferry.topology.model;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

import java.util.Comparator;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PCI function address (domain:bus:device.function). NVML prints an 8-digit upper-case domain
 * ({@code 00000000:07:00.0}), sysfs a 4-digit lower-case one ({@code 0000:07:00.0}) and many tools
 * none at all ({@code 07:00.0}); all three parse to the same value so NVML and sysfs facts join.
 */
public record PciAddress(int domain, int bus, int device, int function)
        implements Comparable<PciAddress>
{
    private static final Pattern FORMAT = Pattern.compile(
            "(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\\.([0-7])");
    private static final Comparator<PciAddress> ORDER = Comparator.comparingInt(PciAddress::domain)
            .thenComparingInt(PciAddress::bus)
            .thenComparingInt(PciAddress::device)
            .thenComparingInt(PciAddress::function);

    public PciAddress
    {
        if (domain < 0 || bus < 0 || bus > 0xff || device < 0 || device > 0x1f || function < 0 || function > 7) {
            throw new IllegalArgumentException(String.format("Invalid PCI address %x:%x:%x.%x", domain, bus, device, function));
        }
    }

    /** Parses NVML, sysfs and short spellings; anything else is a {@code USER_ERROR} quoting the text. */
    public static PciAddress parse(String text)
    {
        Matcher matcher = FORMAT.matcher(text.trim());
        if (!matcher.matches()) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Not a PCI address: '" + text
                    + "' (expected dddd:bb:dd.f, dddddddd:bb:dd.f or bb:dd.f)");
        }
        // The domain is unsigned 32-bit in NVML; domains above 0x7fffffff do not occur in practice
        long domain = matcher.group(1) == null ? 0 : Long.parseLong(matcher.group(1), 16);
        if (domain > Integer.MAX_VALUE) {
            throw new FerryException(ErrorCategory.USER_ERROR, "PCI domain too large: '" + text + "'");
        }
        int device = Integer.parseInt(matcher.group(3), 16);
        if (device > 0x1f) {
            throw new FerryException(ErrorCategory.USER_ERROR, "PCI device number above 0x1f: '" + text + "'");
        }
        return new PciAddress((int) domain, Integer.parseInt(matcher.group(2), 16), device, Integer.parseInt(matcher.group(4), 16));
    }

    /** The sysfs spelling, e.g. {@code 0000:07:00.0}. */
    @Override
    public String toString()
    {
        return String.format(Locale.ROOT, "%04x:%02x:%02x.%x", domain, bus, device, function);
    }

    @Override
    public int compareTo(PciAddress other)
    {
        return ORDER.compare(this, other);
    }
}
