package dev.ferry.shuffle.exchange;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Ferry's map side places rows with Spark's own hash partition-id expression (through Spark's
 * prepareShuffleDependency), which is what keeps Ferry's exchanges co-partitioned with Spark's.
 * This pins that expression, evaluated the way the map side evaluates it, to an independent
 * implementation of the contract (Murmur3 x86_32, seed 42, nulls skipped, -0.0 as 0.0, pmod) for
 * many random rows of every hashable key type: if either side changed, co-partitioning would break.
 */
class TestHashPartitionIds
{
    private static final DataType[] KEY_TYPES = {
            DataTypes.IntegerType, DataTypes.LongType, DataTypes.StringType, DataTypes.DoubleType, DataTypes.FloatType,
            DataTypes.BooleanType, DataTypes.ShortType, DataTypes.ByteType, DataTypes.DateType, DataTypes.TimestampType,
            DataTypes.BinaryType, DataTypes.createDecimalType(12, 2), DataTypes.createDecimalType(30, 5)};

    @Test
    void sparksPartitionIdsFollowMurmur3Seed42WithPmod()
    {
        Random random = new Random(42);
        for (int numPartitions : new int[] {1, 7, 200}) {
            for (int columns = 1; columns <= 3; columns++) {
                for (int trial = 0; trial < 6; trial++) {
                    DataType[] types = new DataType[columns];
                    List<Expression> keys = new ArrayList<>();
                    for (int column = 0; column < columns; column++) {
                        types[column] = KEY_TYPES[random.nextInt(KEY_TYPES.length)];
                        keys.add(new BoundReference(column, types[column], true));
                    }
                    Expression partitionId = new HashPartitioning(CollectionConverters.asScala(keys).toList(), numPartitions).partitionIdExpression();
                    UnsafeProjection projection = UnsafeProjection.create(CollectionConverters.asScala(List.of(partitionId)).toList());
                    for (int row = 0; row < 500; row++) {
                        Object[] values = new Object[columns];
                        for (int column = 0; column < columns; column++) {
                            values[column] = random.nextInt(8) == 0 ? null : value(types[column], random);
                        }
                        int expected = Math.floorMod(rowHash(types, values), numPartitions);
                        assertEquals(expected, projection.apply(new GenericInternalRow(values)).getInt(0), java.util.Arrays.toString(types) + " " + java.util.Arrays.toString(values));
                    }
                }
            }
        }
    }

    private static Object value(DataType type, Random random)
    {
        if (type == DataTypes.IntegerType || type == DataTypes.DateType) {
            return random.nextInt();
        }
        if (type == DataTypes.LongType || type == DataTypes.TimestampType) {
            return random.nextLong();
        }
        if (type == DataTypes.StringType) {
            return UTF8String.fromString("key-" + random.nextInt(1000) + (random.nextBoolean() ? "é" : ""));
        }
        if (type == DataTypes.DoubleType) {
            return random.nextInt(10) == 0 ? -0.0d : random.nextGaussian();
        }
        if (type == DataTypes.FloatType) {
            return random.nextInt(10) == 0 ? -0.0f : random.nextFloat();
        }
        if (type == DataTypes.BooleanType) {
            return random.nextBoolean();
        }
        if (type == DataTypes.ShortType) {
            return (short) random.nextInt();
        }
        if (type == DataTypes.ByteType) {
            return (byte) random.nextInt();
        }
        if (type == DataTypes.BinaryType) {
            byte[] bytes = new byte[random.nextInt(11)];
            random.nextBytes(bytes);
            return bytes;
        }
        DecimalType decimal = (DecimalType) type;
        BigInteger unscaled = new BigInteger(decimal.precision() * 3, random);
        return Decimal.apply(new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(), decimal.scale()), decimal.precision(), decimal.scale());
    }

    // ---- the contract, written out independently ----

    private static int rowHash(DataType[] types, Object[] values)
    {
        int hash = 42;
        for (int i = 0; i < types.length; i++) {
            if (values[i] != null) {
                hash = hash(types[i], values[i], hash);
            }
        }
        return hash;
    }

    private static int hash(DataType type, Object value, int seed)
    {
        if (type == DataTypes.IntegerType || type == DataTypes.DateType) {
            return hashInt((Integer) value, seed);
        }
        if (type == DataTypes.ShortType) {
            return hashInt((Short) value, seed);
        }
        if (type == DataTypes.ByteType) {
            return hashInt((Byte) value, seed);
        }
        if (type == DataTypes.BooleanType) {
            return hashInt((Boolean) value ? 1 : 0, seed);
        }
        if (type == DataTypes.LongType || type == DataTypes.TimestampType) {
            return hashLong((Long) value, seed);
        }
        if (type == DataTypes.FloatType) {
            float f = (Float) value;
            return hashInt(Float.floatToIntBits(f == -0.0f ? 0.0f : f), seed);
        }
        if (type == DataTypes.DoubleType) {
            double d = (Double) value;
            return hashLong(Double.doubleToLongBits(d == -0.0d ? 0.0d : d), seed);
        }
        if (type == DataTypes.StringType) {
            return hashBytes(((UTF8String) value).toString().getBytes(StandardCharsets.UTF_8), seed);
        }
        if (type == DataTypes.BinaryType) {
            return hashBytes((byte[]) value, seed);
        }
        DecimalType decimal = (DecimalType) type;
        Decimal number = (Decimal) value;
        if (decimal.precision() <= 18) {
            return hashLong(number.toUnscaledLong(), seed);
        }
        return hashBytes(number.toJavaBigDecimal().unscaledValue().toByteArray(), seed);
    }

    private static int hashInt(int input, int seed)
    {
        return finish(mixH1(seed, mixK1(input)), 4);
    }

    private static int hashLong(long input, int seed)
    {
        int h1 = mixH1(seed, mixK1((int) input));
        h1 = mixH1(h1, mixK1((int) (input >>> 32)));
        return finish(h1, 8);
    }

    /** Spark's legacy byte hashing: 4-byte little-endian words, then each trailing byte as its own word. */
    private static int hashBytes(byte[] bytes, int seed)
    {
        int aligned = bytes.length - bytes.length % 4;
        ByteBuffer words = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int h1 = seed;
        for (int i = 0; i < aligned; i += 4) {
            h1 = mixH1(h1, mixK1(words.getInt(i)));
        }
        for (int i = aligned; i < bytes.length; i++) {
            h1 = mixH1(h1, mixK1(bytes[i]));
        }
        return finish(h1, bytes.length);
    }

    private static int mixK1(int k1)
    {
        k1 *= 0xcc9e2d51;
        k1 = Integer.rotateLeft(k1, 15);
        return k1 * 0x1b873593;
    }

    private static int mixH1(int h1, int k1)
    {
        h1 ^= k1;
        h1 = Integer.rotateLeft(h1, 13);
        return h1 * 5 + 0xe6546b64;
    }

    private static int finish(int h1, int length)
    {
        h1 ^= length;
        h1 ^= h1 >>> 16;
        h1 *= 0x85ebca6b;
        h1 ^= h1 >>> 13;
        h1 *= 0xc2b2ae35;
        return h1 ^ (h1 >>> 16);
    }
}
