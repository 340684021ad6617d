package dev.ferry.examples.sql;

import java.util.ArrayList;
import java.util.List;

/** Splits a script at semicolons that are outside quotes, backticks and comments. */
final class SqlStatements
{
    private SqlStatements() {}

    static List<String> split(String script)
    {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        char quote = 0;
        for (int i = 0; i < script.length(); i++) {
            char c = script.charAt(i);
            if (quote != 0) {
                current.append(c);
                if (c == '\\' && quote != '`' && i + 1 < script.length()) {
                    current.append(script.charAt(++i));
                }
                else if (c == quote) {
                    quote = 0;
                }
                continue;
            }
            if (c == '-' && i + 1 < script.length() && script.charAt(i + 1) == '-') {
                while (i < script.length() && script.charAt(i) != '\n') {
                    i++;
                }
                current.append('\n');
                continue;
            }
            if (c == '\'' || c == '"' || c == '`') {
                quote = c;
                current.append(c);
                continue;
            }
            if (c == ';') {
                add(statements, current);
                current.setLength(0);
                continue;
            }
            current.append(c);
        }
        add(statements, current);
        return statements;
    }

    private static void add(List<String> statements, StringBuilder statement)
    {
        String text = statement.toString().trim();
        if (!text.isEmpty()) {
            statements.add(text);
        }
    }
}
