package dev.ferry.examples.bench.transport;

import java.util.Locale;

/**
 * One route's best throughput until the reader has read the fetched bytes once ({@code gbps}, the
 * one compared with the baseline), the same for the fetch alone ({@code fetchOnlyGBps}: a route
 * that maps instead of copying looks far faster there, since its page faults come later), the
 * baseline, and what carried it.
 */
public record RouteResult(RouteCase route, boolean measured, double gbps, double fetchOnlyGBps, double baselineGBps, String note)
{
    public boolean sameNode()
    {
        return route.sameNode();
    }

    public double fraction()
    {
        return measured ? gbps / baselineGBps : Double.NaN;
    }

    public String line(double sameNodeTarget)
    {
        String versus = route.sameNode() ? "memcpy" : "loopback";
        if (!measured) {
            return String.format(Locale.ROOT, "%-17s %-10s %9s %9s %9s  %s", route.label(), versus, "-", "-", "-", note);
        }
        String verdict = route.sameNode() ? (fraction() >= sameNodeTarget ? "meets " : "below ") + sameNodeTarget + " target" : "";
        String text = note.isEmpty() ? verdict : verdict.isEmpty() ? note : verdict + "; " + note;
        return String.format(Locale.ROOT, "%-17s %-10s %9.2f %9.2f %9.2f  %s", route.label(), versus, gbps, fraction(), fetchOnlyGBps, text);
    }
}
