/**
 * Device batches repartitioned across executors' GPUs, as {@code df.repartition(n, keys)} places
 * rows: {@link dev.ferry.repartition.DeviceRepartition#of} over a gds
 * {@link dev.ferry.gds.api.DeviceBatches.DeviceScan}. The map side repartitions each scan
 * partition's device batches on its GPU and keeps one packed device block per output partition in
 * the executor's device store; the reduce side fetches its blocks from every map's executor over
 * the route the topology decides for a device consumer and hands them on as device batches. Lives
 * in the plugin because it needs both the gds reader and Ferry's shuffle manager.
 */
package dev.ferry.repartition;
