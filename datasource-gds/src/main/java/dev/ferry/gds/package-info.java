/**
 * The {@code gds} Parquet DataSource V2 with GPUDirect Storage. Nothing here yet: the gds issue
 * fills it.
 */
package dev.ferry.gds;
