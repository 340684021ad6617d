package dev.ferry.common;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

class FerryVersionTest
{
    @Test
    void theBuildWritesItsVersionIntoTheJar()
    {
        // Filtered from ${project.version} by Maven: never the placeholder, never "unknown" in a build.
        assertTrue(FerryVersion.version().matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), FerryVersion.version());
    }
}
