package dev.ferry.topology.report;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestHtmlReport
{
    @Test
    void escapesTextRightAlignsNumbersAndInlinesSvgWithoutItsXmlDeclaration()
    {
        String html = new HtmlReport("a <b> & c")
                .heading("Times")
                .table(List.of("query", "Ferry"), List.of(List.of("q<1>", "1.5s"), List.of("short")))
                .svg("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\n")
                .render();
        assertTrue(html.startsWith("<!DOCTYPE html>"), html);
        assertTrue(html.contains("<title>a &lt;b&gt; &amp; c</title>"), html);
        assertTrue(html.contains("<td>q&lt;1&gt;</td><td class=\"n\">1.5s</td>"), html);
        assertTrue(html.contains("<tr><td>short</td><td></td></tr>"), html);
        assertTrue(html.contains("<div class=\"drawing\">\n<svg xmlns"), html);
        assertFalse(html.contains("<?xml"), html);
    }

    @Test
    void refusesRowsWiderThanTheHeaderAndNonSvg()
    {
        assertThrows(IllegalArgumentException.class, () -> new HtmlReport("t").table(List.of("a"), List.of(List.of("1", "2"))));
        assertThrows(IllegalArgumentException.class, () -> new HtmlReport("t").svg("<html/>"));
    }
}
