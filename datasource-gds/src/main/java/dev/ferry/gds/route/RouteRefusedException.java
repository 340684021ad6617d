package dev.ferry.gds.route;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

/** A forced route ({@code spark.ferry.gds.route}) this machine or build cannot serve. */
public class RouteRefusedException
        extends FerryException
{
    public RouteRefusedException(String message)
    {
        super(ErrorCategory.EXTERNAL, message);
    }
}
