package dev.ferry.shuffle.store;

/**
 * One map task attempt's output: {@code mapId} is Spark's map task attempt id (what MapStatus and
 * the reducers' block ids carry), {@code mapIndex} the map partition it computed.
 */
public record MapOutputId(int shuffleId, long mapId, int mapIndex, int stageId)
{
}
