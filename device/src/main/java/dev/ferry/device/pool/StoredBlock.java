package dev.ferry.device.pool;

import java.util.Objects;

/** Which shuffle output a stored block is, and who produced it (for release at task, stage or shuffle end). */
public final class StoredBlock
{
    private final int shuffleId;
    private final long mapId;
    private final int reduceId;
    private final int stageId;
    private final long taskAttemptId;

    public StoredBlock(int shuffleId, long mapId, int reduceId, int stageId, long taskAttemptId)
    {
        this.shuffleId = shuffleId;
        this.mapId = mapId;
        this.reduceId = reduceId;
        this.stageId = stageId;
        this.taskAttemptId = taskAttemptId;
    }

    public int shuffleId()
    {
        return shuffleId;
    }

    public long mapId()
    {
        return mapId;
    }

    public int reduceId()
    {
        return reduceId;
    }

    public int stageId()
    {
        return stageId;
    }

    public long taskAttemptId()
    {
        return taskAttemptId;
    }

    @Override
    public boolean equals(Object other)
    {
        if (!(other instanceof StoredBlock)) {
            return false;
        }
        StoredBlock that = (StoredBlock) other;
        return shuffleId == that.shuffleId && mapId == that.mapId && reduceId == that.reduceId && stageId == that.stageId && taskAttemptId == that.taskAttemptId;
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(shuffleId, mapId, reduceId, stageId, taskAttemptId);
    }

    @Override
    public String toString()
    {
        return "shuffle_" + shuffleId + "_" + mapId + "_" + reduceId + " (stage " + stageId + ", task " + taskAttemptId + ")";
    }
}
