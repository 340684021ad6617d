/**
 * Ferry's Arrow columnar shuffle for Spark SQL: {@link dev.ferry.shuffle.FerryShuffleManager}
 * (a SortShuffleManager that takes only Ferry's dependencies), the AQE-compatible columnar exchange
 * ({@code exchange}), the Arrow block format ({@code format}), map output stores ({@code store}),
 * the map and reduce sides ({@code writer}, {@code reader}) and the transport SPI with its TCP
 * baseline ({@code transport}). See shuffle-manager/README.md.
 */
package dev.ferry.shuffle;
