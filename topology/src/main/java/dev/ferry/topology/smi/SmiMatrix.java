package dev.ferry.topology.smi;

import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The raw content of an {@code nvidia-smi topo -m} matrix, before it becomes a topology: column names
 * (with NIC legend names applied), the cells by row and column, and the affinity values of each row.
 *
 * @param devices device names in column order, e.g. {@code [GPU0, GPU1, mlx5_0]}
 * @param cells {@code cells.get(i).get(j)} is the cell in row {@code devices[i]}, column {@code devices[j]}
 * @param affinities per device, affinity column name (e.g. {@code CPU Affinity}) to value; empty for NIC rows
 */
record SmiMatrix(List<String> devices, List<List<String>> cells, Map<String, Map<String, String>> affinities)
{
    SmiMatrix
    {
        devices = List.copyOf(requireNonNull(devices, "devices is null"));
        cells = cells.stream().map(List::copyOf).toList();
        affinities = Map.copyOf(requireNonNull(affinities, "affinities is null"));
    }
}
