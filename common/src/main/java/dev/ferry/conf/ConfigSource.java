package dev.ferry.conf;

import java.util.Optional;

/**
 * Where configuration values come from: a SparkConf on a cluster, a map in tests, system
 * properties or command-line flags in {@code bin/ferry}. Keys are full names ({@code spark.ferry.*}).
 */
@FunctionalInterface
public interface ConfigSource
{
    Optional<String> get(String key);
}
