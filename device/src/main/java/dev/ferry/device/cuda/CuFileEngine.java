package dev.ferry.device.cuda;

import dev.ferry.device.cufile.DeviceFile;
import dev.ferry.device.cufile.ReadPathVerdict;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.ChannelReadEngine;
import dev.ferry.device.spi.EngineRead;
import org.bytedeco.cuda.cufile.CUfileBatchHandle_t;
import org.bytedeco.cuda.cufile.CUfileError_t;
import org.bytedeco.cuda.cufile.CUfileHandle_t;
import org.bytedeco.cuda.cufile.CUfileIOEvents_t;
import org.bytedeco.cuda.cufile.CUfileIOParams_t;
import org.bytedeco.cuda.global.cufile;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Reads through a registered cuFile handle: {@code cuFileRead} into device memory, or one
 * {@code cuFileBatchIO} submission for a batch. The result codes follow cuFile: a byte count
 * (short at end of file), -1 with errno set, or a negated {@code CUfileOpError}. Pinned-host
 * targets are read through the buffered descriptor instead.
 */
final class CuFileEngine
        extends ChannelReadEngine
{
    private final CuFileDriver driver;
    private final FileChannel direct;
    private final CUfileHandle_t handle;

    /** {@code buffered} gives the size and reads pinned targets; {@code direct} is the O_DIRECT descriptor behind {@code handle}. */
    CuFileEngine(CuFileDriver driver, CudaBackend backend, FileChannel buffered, FileChannel direct, CUfileHandle_t handle, ReadPathVerdict verdict)
    {
        super(buffered, verdict, DeviceFile.DIRECT_IO_ALIGNMENT);
        this.driver = requireNonNull(driver, "driver is null");
        requireNonNull(backend, "backend is null");
        this.direct = requireNonNull(direct, "direct is null");
        this.handle = requireNonNull(handle, "handle is null");
    }

    @Override
    public boolean isAligned(NativeMemory memory, long offset)
    {
        return CudaBackend.cudaMemory(memory).address(offset) % alignment() == 0;
    }

    @Override
    public long read(long fileOffset, long length, NativeMemory target, long targetOffset)
            throws IOException
    {
        CudaMemory memory = CudaBackend.cudaMemory(target);
        if (memory.kind() == CudaMemory.Kind.PINNED) {
            return readInto(CudaPosixEngine.hostView(memory, targetOffset, length), fileOffset);
        }
        long result = cufile.cuFileRead(handle, memory.base(), length, fileOffset, memory.baseOffset() + targetOffset);
        return checkResult(result, fileOffset, length);
    }

    private static long checkResult(long result, long fileOffset, long length)
            throws IOException
    {
        if (result == -1) {
            throw new IOException("cuFileRead of [" + fileOffset + ", +" + length + ") failed with a system error (errno)");
        }
        if (result < 0) {
            throw new IOException("cuFileRead of [" + fileOffset + ", +" + length + ") failed: " + CuFileDriver.describe((int) -result));
        }
        return result;
    }

    @Override
    public long[] readBatch(List<EngineRead> reads)
            throws IOException
    {
        boolean allDevice = reads.stream().allMatch(read -> CudaBackend.cudaMemory(read.target()).kind() != CudaMemory.Kind.PINNED);
        if (!driver.batchSupported() || !allDevice || reads.size() > driver.maxBatch() || reads.size() < 2) {
            return super.readBatch(reads);
        }
        int count = reads.size();
        CUfileBatchHandle_t batch = new CUfileBatchHandle_t();
        CUfileError_t setUp = cufile.cuFileBatchIOSetUp(batch, count);
        if (setUp.err() != cufile.CU_FILE_SUCCESS) {
            return super.readBatch(reads);
        }
        try {
            CUfileIOParams_t params = new CUfileIOParams_t(count);
            for (int i = 0; i < count; i++) {
                EngineRead read = reads.get(i);
                CudaMemory memory = CudaBackend.cudaMemory(read.target());
                params.position(i)
                        .mode(cufile.CUFILE_BATCH)
                        .fh(handle)
                        .opcode(cufile.CUFILE_READ)
                        .cookie(new AddressPointer(i + 1))
                        .u_batch_devPtr_base(memory.base())
                        .u_batch_file_offset(read.fileOffset())
                        .u_batch_devPtr_offset(memory.baseOffset() + read.targetOffset())
                        .u_batch_size(read.length());
            }
            params.position(0);
            CUfileError_t submitted = cufile.cuFileBatchIOSubmit(batch, count, params, 0);
            if (submitted.err() != cufile.CU_FILE_SUCCESS) {
                throw new IOException("cuFileBatchIOSubmit of " + count + " reads failed: " + CuFileDriver.describe(submitted.err()));
            }
            long[] results = new long[count];
            int completed = 0;
            CUfileIOEvents_t events = new CUfileIOEvents_t(count);
            while (completed < count) {
                int[] got = {count - completed};
                CUfileError_t status = cufile.cuFileBatchIOGetStatus(batch, count - completed, got, events, null);
                if (status.err() != cufile.CU_FILE_SUCCESS) {
                    throw new IOException("cuFileBatchIOGetStatus failed: " + CuFileDriver.describe(status.err()));
                }
                for (int i = 0; i < got[0]; i++) {
                    events.position(i);
                    int index = (int) (events.cookie().address() - 1);
                    EngineRead read = reads.get(index);
                    if (events.status() != cufile.CUFILE_COMPLETE) {
                        throw new IOException("cuFile batch read of [" + read.fileOffset() + ", +" + read.length() + ") ended with status " + events.status() + ", result " + events.ret());
                    }
                    results[index] = checkResult(events.ret(), read.fileOffset(), read.length());
                }
                events.position(0);
                completed += got[0];
            }
            return results;
        }
        finally {
            cufile.cuFileBatchIODestroy(batch);
        }
    }

    @Override
    public void close()
            throws IOException
    {
        cufile.cuFileHandleDeregister(handle);
        try {
            direct.close();
        }
        finally {
            super.close();
        }
    }
}
