package dev.ferry.shuffle.reader;

import org.apache.spark.shuffle.ShuffleReadMetricsReporter;

/** A read-metrics reporter that just adds up what the reader reports. */
final class CountingReadMetrics
        implements ShuffleReadMetricsReporter
{
    long remoteBlocks;
    long localBlocks;
    long remoteBytes;
    long localBytes;
    long records;
    long fetchWaitMillis;

    @Override
    public void incRemoteBlocksFetched(long value)
    {
        remoteBlocks += value;
    }

    @Override
    public void incLocalBlocksFetched(long value)
    {
        localBlocks += value;
    }

    @Override
    public void incRemoteBytesRead(long value)
    {
        remoteBytes += value;
    }

    @Override
    public void incRemoteBytesReadToDisk(long value) {}

    @Override
    public void incLocalBytesRead(long value)
    {
        localBytes += value;
    }

    @Override
    public void incFetchWaitTime(long value)
    {
        fetchWaitMillis += value;
    }

    @Override
    public void incRecordsRead(long value)
    {
        records += value;
    }

    @Override
    public void incCorruptMergedBlockChunks(long value) {}

    @Override
    public void incMergedFetchFallbackCount(long value) {}

    @Override
    public void incRemoteMergedBlocksFetched(long value) {}

    @Override
    public void incLocalMergedBlocksFetched(long value) {}

    @Override
    public void incRemoteMergedChunksFetched(long value) {}

    @Override
    public void incLocalMergedChunksFetched(long value) {}

    @Override
    public void incRemoteMergedBytesRead(long value) {}

    @Override
    public void incLocalMergedBytesRead(long value) {}

    @Override
    public void incRemoteReqsDuration(long value) {}

    @Override
    public void incRemoteMergedReqsDuration(long value) {}
}
