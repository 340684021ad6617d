package dev.ferry.device.cuda;

import dev.ferry.device.spi.BackendEvent;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.global.cudart;

import static java.util.Objects.requireNonNull;

/** A cudaEvent_t recorded on a stream. */
final class CudaEvent
        implements BackendEvent
{
    private final CUevent_st event;

    CudaEvent(CUevent_st event)
    {
        this.event = requireNonNull(event, "event is null");
    }

    CUevent_st handle()
    {
        return event;
    }

    @Override
    public boolean isComplete()
    {
        int status = cudart.cudaEventQuery(event);
        if (status == cudart.cudaErrorNotReady) {
            return false;
        }
        CudaErrors.check(status, "cudaEventQuery");
        return true;
    }

    @Override
    public void synchronize()
    {
        CudaErrors.check(cudart.cudaEventSynchronize(event), "cudaEventSynchronize");
    }

    @Override
    public double millisSince(BackendEvent earlier)
    {
        if (!(earlier instanceof CudaEvent)) {
            throw new IllegalArgumentException("Cannot time against an event of another backend");
        }
        float[] millis = new float[1];
        CudaErrors.check(cudart.cudaEventElapsedTime(millis, ((CudaEvent) earlier).event, event), "cudaEventElapsedTime");
        return millis[0];
    }

    @Override
    public void close()
    {
        CudaErrors.check(cudart.cudaEventDestroy(event), "cudaEventDestroy");
    }
}
