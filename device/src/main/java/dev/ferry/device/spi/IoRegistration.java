package dev.ferry.device.spi;

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
        return new IoRegistration()
        {
            @Override
            public boolean registered()
            {
                return false;
            }

            @Override
            public String detail()
            {
                return reason;
            }

            @Override
            public void deregister() {}
        };
    }

    static IoRegistration emulated(String detail)
    {
        return new IoRegistration()
        {
            @Override
            public boolean registered()
            {
                return true;
            }

            @Override
            public String detail()
            {
                return detail;
            }

            @Override
            public void deregister() {}
        };
    }
}
