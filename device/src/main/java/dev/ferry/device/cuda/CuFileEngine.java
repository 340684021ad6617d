package dev.ferry.device.cuda;

import dev.ferry.device.cufile.ReadPathVerdict;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.ChannelReadEngine;
import dev.ferry.device.spi.EngineRead;
import org.bytedeco.cuda.cufile.CUfileBatchHandle_t;
import org.bytedeco.cuda.cufile.CUfileError_t;
import org.bytedeco.cuda.cufile.CUfileHandle_t;
import org.bytedeco.cuda.cufile.CUfileIOEvents_t;
import org.bytedeco.cuda.cufile.CUfileIOParams_t;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.cufile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Reads through a registered cuFile handle: {@code cuFileRead} into device memory, or one
 * {@code cuFileBatchIO} submission for a batch. The result codes follow cuFile: a byte count
 * (short at end of file), -1 with errno set, or a negated {@code CUfileOpError}. Pinned-host
 * targets are read through the buffered descriptor instead.
 *
 * <ul>
 * <li>Reads run on pool threads, so each makes the target's device (its primary context, the
 * buffer's context) current first, as KvikIO pushes the buffer's context before a pooled read.</li>
 * <li>No alignment is demanded: cuFile handles unaligned offsets, sizes and addresses itself, so
 * a piece never takes a second device buffer and an on-device copy.</li>
 * <li>A pool buffer's slab is registered with {@code cuFileBufRegister} once, on the first read
 * into it, and stays registered while the slab lives.</li>
 * <li>-1 means errno, which JavaCPP does not surface: the same range is then read through the
 * buffered descriptor, and the system error that read raises (or its success) is reported.</li>
 * <li>A failed batch is cancelled before it is destroyed, since other entries may be in flight.</li>
 * </ul>
 */
final class CuFileEngine
        extends ChannelReadEngine
{
    private static final Logger log = LoggerFactory.getLogger(CuFileEngine.class);

    private final CuFileDriver driver;
    private final CudaBackend backend;
    private final FileChannel direct;
    private final CUfileHandle_t handle;

    /** {@code buffered} gives the size and reads pinned targets; {@code direct} is the O_DIRECT descriptor behind {@code handle}. */
    CuFileEngine(CuFileDriver driver, CudaBackend backend, FileChannel buffered, FileChannel direct, CUfileHandle_t handle, ReadPathVerdict verdict)
    {
        super(buffered, verdict);
        this.driver = requireNonNull(driver, "driver is null");
        this.backend = requireNonNull(backend, "backend is null");
        this.direct = requireNonNull(direct, "direct is null");
        this.handle = requireNonNull(handle, "handle is null");
    }

    @Override
    public long read(long fileOffset, long length, NativeMemory target, long targetOffset)
            throws IOException
    {
        CudaMemory memory = CudaBackend.cudaMemory(target);
        if (memory.kind() == CudaMemory.Kind.PINNED) {
            return readInto(CudaPosixEngine.hostView(memory, targetOffset, length), fileOffset);
        }
        prepare(memory);
        long result = cufile.cuFileRead(handle, memory.base(), length, fileOffset, memory.baseOffset() + targetOffset);
        return checkResult(result, fileOffset, length);
    }

    /** The target's device current on this (pool) thread, and its slab registered once. */
    private void prepare(CudaMemory memory)
    {
        CudaErrors.check(cudart.cudaSetDevice(memory.location().device()), "cudaSetDevice(" + memory.location().device() + ") before cuFileRead into " + memory.describe());
        if (memory.kind() == CudaMemory.Kind.DEVICE) {
            backend.slabRegistration(memory);
        }
    }

    private long checkResult(long result, long fileOffset, long length)
            throws IOException
    {
        if (result == -1) {
            throw new IOException("cuFileRead of [" + fileOffset + ", +" + length + ") failed with a system error (errno); " + systemErrorOf(fileOffset, length));
        }
        if (result < 0) {
            throw new IOException("cuFileRead of [" + fileOffset + ", +" + length + ") failed: " + CuFileDriver.describe((int) -result));
        }
        return result;
    }

    /** What the kernel says about this range, read through the buffered descriptor: its errno's message, or that it reads fine. */
    private String systemErrorOf(long fileOffset, long length)
    {
        try {
            long read = readInto(ByteBuffer.allocate((int) Math.min(length, 4096)), fileOffset);
            return "a POSIX read of the same range succeeds (" + read + " bytes), so the error is on cuFile's side (e.g. EINVAL/EFAULT for the GPU buffer, or the O_DIRECT descriptor)";
        }
        catch (IOException e) {
            return "a POSIX read of the same range fails too: " + e.getMessage();
        }
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
        for (EngineRead read : reads) {
            prepare(CudaBackend.cudaMemory(read.target()));
        }
        CUfileBatchHandle_t batch = new CUfileBatchHandle_t();
        CUfileError_t setUp = cufile.cuFileBatchIOSetUp(batch, count);
        if (setUp.err() != cufile.CU_FILE_SUCCESS) {
            return super.readBatch(reads);
        }
        boolean submitted = false;
        boolean finished = false;
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
            CUfileError_t submit = cufile.cuFileBatchIOSubmit(batch, count, params, 0);
            if (submit.err() != cufile.CU_FILE_SUCCESS) {
                throw new IOException("cuFileBatchIOSubmit of " + count + " reads failed: " + CuFileDriver.describe(submit.err()));
            }
            submitted = true;
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
            finished = true;
            return results;
        }
        finally {
            if (submitted && !finished) {
                // Other entries may still be in flight into device memory the caller is about to reuse.
                CUfileError_t cancelled = cufile.cuFileBatchIOCancel(batch);
                if (cancelled.err() != cufile.CU_FILE_SUCCESS) {
                    log.warn("cuFileBatchIOCancel after a failed batch of {} reads failed: {}", count, CuFileDriver.describe(cancelled.err()));
                }
            }
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
