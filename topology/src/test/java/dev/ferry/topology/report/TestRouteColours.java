package dev.ferry.topology.report;

import dev.ferry.topology.TestingFiles;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.route.Route;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each route is told apart by colour in the drawings; a new {@link Route} fails here until it gets its own. */
class TestRouteColours
{
    @Test
    void everyRouteHasItsOwnColour()
    {
        Map<String, Route> owner = new HashMap<>();
        Map<Route, String> colours = new EnumMap<>(Route.class);
        for (Route route : Route.values()) {
            String colour = RouteColours.colour(route);
            assertTrue(colour.matches("#[0-9a-f]{6}"), route + ": " + colour);
            // White is the drawing's background
            assertTrue(!colour.equals("#ffffff"), route + " is drawn in the background colour");
            Route previous = owner.putIfAbsent(colour, route);
            assertEquals(null, previous, route + " and " + previous + " share " + colour);
            colours.put(route, colour);
        }
        assertEquals(Route.values().length, colours.size());
    }

    @Test
    void theDrawingsLegendNamesEveryRouteInItsColour()
            throws Exception
    {
        DecisionReport report = DecisionReport.decide(TopologyFileReader.load(TestingFiles.examplesDirectory().resolve("workstation.json")),
                new RoutePolicy(RoutePolicyConfig.defaults()));
        String svg = SvgRenderer.render(report);
        for (Route route : Route.values()) {
            if (route == Route.LOCAL) {
                continue;
            }
            assertTrue(svg.contains(">" + route.name() + "</text>"), route + " not in the legend");
            assertTrue(svg.contains("stroke=\"" + RouteColours.colour(route) + "\""), route + "'s colour not drawn");
        }
    }
}
