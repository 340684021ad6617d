package dev.ferry.topology.report;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A self-contained HTML page (no scripts, no external files) of titled tables, paragraphs and inline
 * SVG drawings, so a report can be opened from disk, mailed or attached to a CI run as one file.
 * Every text is escaped; an SVG is inlined without its XML declaration.
 */
public final class HtmlReport
{
    private final String title;
    private final StringBuilder body = new StringBuilder();

    public HtmlReport(String title)
    {
        this.title = requireNonNull(title, "title is null");
    }

    public HtmlReport heading(String text)
    {
        body.append("<h2>").append(SvgRenderer.escape(text)).append("</h2>\n");
        return this;
    }

    public HtmlReport paragraph(String text)
    {
        body.append("<p>").append(SvgRenderer.escape(text)).append("</p>\n");
        return this;
    }

    /** A preformatted block, e.g. the demo's console summary. */
    public HtmlReport preformatted(String text)
    {
        body.append("<pre>").append(SvgRenderer.escape(text)).append("</pre>\n");
        return this;
    }

    /** A table; cells that look like numbers are right-aligned. Rows shorter than the header are padded. */
    public HtmlReport table(List<String> header, List<List<String>> rows)
    {
        requireNonNull(header, "header is null");
        requireNonNull(rows, "rows is null");
        body.append("<table>\n<tr>");
        header.forEach(cell -> body.append("<th>").append(SvgRenderer.escape(cell)).append("</th>"));
        body.append("</tr>\n");
        for (List<String> row : rows) {
            if (row.size() > header.size()) {
                throw new IllegalArgumentException("Row " + row + " has more cells than the header " + header);
            }
            List<String> cells = new ArrayList<>(row);
            while (cells.size() < header.size()) {
                cells.add("");
            }
            body.append("<tr>");
            for (String cell : cells) {
                body.append(numeric(cell) ? "<td class=\"n\">" : "<td>").append(SvgRenderer.escape(cell)).append("</td>");
            }
            body.append("</tr>\n");
        }
        body.append("</table>\n");
        return this;
    }

    /** An SVG document (e.g. from {@link SvgRenderer}) drawn inline. */
    public HtmlReport svg(String svg)
    {
        requireNonNull(svg, "svg is null");
        String inline = svg.startsWith("<?xml") ? svg.substring(svg.indexOf("?>") + 2).stripLeading() : svg;
        if (!inline.startsWith("<svg")) {
            throw new IllegalArgumentException("Not an SVG document: " + inline.substring(0, Math.min(40, inline.length())));
        }
        body.append("<div class=\"drawing\">\n").append(inline).append("</div>\n");
        return this;
    }

    public String render()
    {
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + SvgRenderer.escape(title) + "</title>\n"
                + "<style>\n"
                + "body { font-family: sans-serif; margin: 2em; color: #222; }\n"
                + "table { border-collapse: collapse; margin: 0.5em 0 1.5em; }\n"
                + "th, td { border: 1px solid #ccc; padding: 4px 10px; text-align: left; }\n"
                + "th { background: #f0f3f6; }\n"
                + "td.n { text-align: right; font-family: monospace; }\n"
                + "pre { background: #f7f7f7; padding: 1em; overflow-x: auto; }\n"
                + ".drawing { overflow-x: auto; border: 1px solid #ddd; padding: 0.5em; }\n"
                + "</style>\n</head>\n<body>\n<h1>" + SvgRenderer.escape(title) + "</h1>\n" + body + "</body>\n</html>\n";
    }

    private static boolean numeric(String cell)
    {
        return cell.matches("[-+]?[\\d,]+(\\.\\d+)?\\s*(x|s|%|B|KiB|MiB|GiB|KB|MB|GB)?");
    }
}
