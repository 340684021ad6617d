package dev.ferry.shuffle.transport;

/** One block to fetch: Spark's {@code shuffle_<shuffleId>_<mapId>_<reduceId>}, mapId being the map task attempt id. */
public record ShuffleBlockRef(int shuffleId, long mapId, int reduceId)
{
    @Override
    public String toString()
    {
        return "shuffle_" + shuffleId + "_" + mapId + "_" + reduceId;
    }
}
