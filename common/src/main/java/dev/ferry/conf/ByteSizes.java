package dev.ferry.conf;

import java.util.Locale;

/** Parses sizes written the way Spark users write them: {@code 512m}, {@code 4g}, {@code 1048576}. */
public final class ByteSizes
{
    private ByteSizes() {}

    public static long parse(String key, String text)
    {
        String value = text.trim().toLowerCase(Locale.ROOT);
        if (value.endsWith("b")) {
            value = value.substring(0, value.length() - 1);
        }
        long multiplier = 1;
        if (!value.isEmpty()) {
            char unit = value.charAt(value.length() - 1);
            switch (unit) {
                case 'k':
                    multiplier = 1L << 10;
                    break;
                case 'm':
                    multiplier = 1L << 20;
                    break;
                case 'g':
                    multiplier = 1L << 30;
                    break;
                case 't':
                    multiplier = 1L << 40;
                    break;
                default:
                    break;
            }
            if (multiplier != 1) {
                value = value.substring(0, value.length() - 1);
            }
        }
        try {
            long number = Long.parseLong(value.trim());
            if (number < 0) {
                throw new IllegalArgumentException(key + " must not be negative, got '" + text + "'");
            }
            return Math.multiplyExact(number, multiplier);
        }
        catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(key + " must be a size such as 512m or 4g, got '" + text + "'", e);
        }
    }
}
