package dev.ferry.device.spi;

import static java.util.Objects.requireNonNull;

/** A backend's registration of a buffer for direct I/O (cuFileBufRegister), or why there is none. */
public interface IoRegistration
{
    boolean registered();

    /** What was done, or why registration did not happen. */
    String detail();

    /** Undoes the registration; called once. */
    void deregister();

    static IoRegistration none(String reason)
    {
        return of(false, reason, () -> {});
    }

    /** Reported as registered, though nothing needed pinning (memory any direct read reaches). */
    static IoRegistration emulated(String detail)
    {
        return of(true, detail, () -> {});
    }

    /** A real registration, which {@code deregister} undoes. */
    static IoRegistration registered(String detail, Runnable deregister)
    {
        return of(true, detail, deregister);
    }

    private static IoRegistration of(boolean registered, String detail, Runnable deregister)
    {
        requireNonNull(detail, "detail is null");
        requireNonNull(deregister, "deregister is null");
        return new IoRegistration()
        {
            @Override
            public boolean registered()
            {
                return registered;
            }

            @Override
            public String detail()
            {
                return detail;
            }

            @Override
            public void deregister()
            {
                deregister.run();
            }
        };
    }
}
