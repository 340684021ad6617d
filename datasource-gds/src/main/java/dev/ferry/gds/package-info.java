/**
 * The {@code gds} Parquet DataSource V2: {@code spark.read.format("gds")}. Files are listed and
 * planned on the driver ({@code plan}), read through one I/O seam whose implementations are the
 * routes HOST, GDS and BOUNCE ({@code io}, {@code route}), and decoded column chunk by column chunk
 * into Arrow vectors ({@code decode}); {@code spark} holds the DataSource V2 glue and
 * {@code metrics} the Spark custom metrics.
 */
package dev.ferry.gds;
