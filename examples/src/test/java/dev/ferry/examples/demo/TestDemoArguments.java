package dev.ferry.examples.demo;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestDemoArguments
{
    @Test
    void defaultsRunFourExecutorsOnTheDgxClusterAtTheDefaultSize()
    {
        DemoArguments arguments = DemoArguments.parse(new String[0]);
        assertEquals("local-cluster[4,1,1024]", arguments.master());
        assertEquals("examples/topologies/dgx-h100-ib-2node.json", arguments.topology().toString());
        assertEquals(DemoSize.parse(DemoSize.DEFAULT), arguments.size());
        assertTrue(arguments.directory().isEmpty());
        assertFalse(arguments.help());
    }

    @Test
    void sizesTurnIntoRowCountsThatNameTheCachedDataset()
    {
        assertEquals((long) (300e6 / DemoSize.BYTES_PER_ROW), DemoSize.parse("300m").lineitemRows());
        assertEquals((long) (1e9 / DemoSize.BYTES_PER_ROW), DemoSize.parse("1G").lineitemRows());
        assertEquals((long) (1.5e6 / DemoSize.BYTES_PER_ROW), DemoSize.parse("1.5mb").lineitemRows());
        assertEquals(DemoSize.parse("300m").lineitemRows(), DemoArguments.parse(new String[] {"--size", "300m"}).size().lineitemRows());
        assertEquals(1234, DemoArguments.parse(new String[] {"--rows", "1_234"}).size().lineitemRows());
        assertTrue(StarSchema.location(java.nio.file.Path.of("cache"), 1234).toString().endsWith("-1234"));
    }

    @Test
    void badArgumentsAreRefusedWithTheFlag()
    {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoArguments.parse(new String[] {"--size", "lots"})).getMessage().contains("--size"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoArguments.parse(new String[] {"--size", "1k"})).getMessage().contains("too small"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoArguments.parse(new String[] {"--rows", "0"})).getMessage().contains("--rows"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoArguments.parse(new String[] {"--size", "10m", "--rows", "5"})).getMessage().contains("give one"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoArguments.parse(new String[] {"--master"})).getMessage().contains("needs a value"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoArguments.parse(new String[] {"--bogus"})).getMessage().contains("--bogus"));
    }
}
