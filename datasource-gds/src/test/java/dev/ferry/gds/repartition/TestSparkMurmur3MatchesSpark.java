package dev.ferry.gds.repartition;

import dev.ferry.device.partition.SparkMurmur3;
import org.apache.spark.sql.catalyst.expressions.Murmur3HashFunction;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.hash.Murmur3_x86_32;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The Java reference hash against Spark's own code on random values: {@code Murmur3_x86_32} for
 * ints, longs and bytes of every tail length (bytes above 0x7F included), and Spark's interpreted
 * {@code Murmur3HashFunction} for floats and doubles (-0.0, NaNs), decimals of both widths and strings.
 */
class TestSparkMurmur3MatchesSpark
{
    @Test
    void primitivesAndBytesEqualSparksMurmur3()
    {
        Random random = new Random(185);
        for (int i = 0; i < 20_000; i++) {
            int seed = random.nextInt();
            int value = random.nextInt();
            long wide = random.nextLong();
            assertEquals(Murmur3_x86_32.hashInt(value, seed), SparkMurmur3.hashInt(value, seed), "hashInt " + value);
            assertEquals(Murmur3_x86_32.hashLong(wide, seed), SparkMurmur3.hashLong(wide, seed), "hashLong " + wide);
            byte[] bytes = new byte[random.nextInt(23)];
            random.nextBytes(bytes);
            assertEquals(Murmur3_x86_32.hashUnsafeBytes(bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length, seed), SparkMurmur3.hashBytes(bytes, 0, bytes.length, seed),
                    "hashUnsafeBytes of " + bytes.length + " bytes");
        }
    }

    @Test
    void typedValuesEqualSparksHashFunction()
    {
        Random random = new Random(186);
        float[] floats = {0.0f, -0.0f, Float.NaN, Float.intBitsToFloat(0x7f800001), Float.intBitsToFloat(0xffc00000), Float.POSITIVE_INFINITY, 1.5f};
        for (float value : floats) {
            assertEquals((int) Murmur3HashFunction.hash(value, DataTypes.FloatType, 42), SparkMurmur3.hashFloat(value, 42), "float " + value);
        }
        double[] doubles = {0.0, -0.0, Double.NaN, Double.longBitsToDouble(0x7ff0000000000001L), Double.NEGATIVE_INFINITY, -2.25};
        for (double value : doubles) {
            assertEquals((int) Murmur3HashFunction.hash(value, DataTypes.DoubleType, 42), SparkMurmur3.hashDouble(value, 42), "double " + value);
        }
        for (int i = 0; i < 5000; i++) {
            int precision = 1 + random.nextInt(38);
            int scale = random.nextInt(precision + 1);
            BigInteger unscaled = RandomBatch.decimal(random, DataTypes.createDecimalType(precision, scale));
            Decimal decimal = Decimal.apply(new BigDecimal(unscaled, scale), precision, scale);
            assertEquals((int) Murmur3HashFunction.hash(decimal, DataTypes.createDecimalType(precision, scale), 42), SparkMurmur3.hashDecimal(unscaled, precision, 42),
                    "decimal(" + precision + ", " + scale + ") unscaled " + unscaled);
            String text = Long.toString(random.nextLong(), 36) + "é€".repeat(random.nextInt(3));
            byte[] utf8 = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            assertEquals((int) Murmur3HashFunction.hash(UTF8String.fromString(text), DataTypes.StringType, 42), SparkMurmur3.hashBytes(utf8, 0, utf8.length, 42), "string " + text);
        }
    }
}
