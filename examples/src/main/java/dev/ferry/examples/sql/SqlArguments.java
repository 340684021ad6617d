package dev.ferry.examples.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** {@code bin/ferry sql [--master M] [--ferry on|off] [--conf k=v]... [--routes] (-e SQL | -f FILE)}. */
final class SqlArguments
{
    static final String USAGE = "usage: bin/ferry sql [--master M] [--ferry on|off] [--conf k=v]... [--routes] (-e SQL | -f FILE)";

    private final String master;
    private final boolean ferry;
    private final Map<String, String> conf;
    private final boolean routes;
    private final Optional<String> sql;
    private final Optional<String> file;

    private SqlArguments(String master, boolean ferry, Map<String, String> conf, boolean routes, Optional<String> sql, Optional<String> file)
    {
        this.master = requireNonNull(master, "master is null");
        this.ferry = ferry;
        this.conf = Map.copyOf(conf);
        this.routes = routes;
        this.sql = requireNonNull(sql, "sql is null");
        this.file = requireNonNull(file, "file is null");
    }

    static SqlArguments parse(String[] args)
    {
        String master = "local[2]";
        boolean ferry = true;
        Map<String, String> conf = new LinkedHashMap<>();
        boolean routes = false;
        Optional<String> sql = Optional.empty();
        Optional<String> file = Optional.empty();
        List<String> rest = new ArrayList<>(List.of(args));
        while (!rest.isEmpty()) {
            String flag = rest.remove(0);
            switch (flag) {
                case "--master":
                    master = value(flag, rest);
                    break;
                case "--ferry": {
                    String value = value(flag, rest);
                    if (!value.equals("on") && !value.equals("off")) {
                        throw new IllegalArgumentException("--ferry takes on or off, got '" + value + "'");
                    }
                    ferry = value.equals("on");
                    break;
                }
                case "--conf": {
                    String setting = value(flag, rest);
                    int equals = setting.indexOf('=');
                    if (equals <= 0) {
                        throw new IllegalArgumentException("--conf takes key=value, got '" + setting + "'");
                    }
                    conf.put(setting.substring(0, equals), setting.substring(equals + 1));
                    break;
                }
                case "--routes":
                    routes = true;
                    break;
                case "-e":
                    sql = Optional.of(value(flag, rest));
                    break;
                case "-f":
                    file = Optional.of(value(flag, rest));
                    break;
                default:
                    throw new IllegalArgumentException("Unknown argument '" + flag + "'");
            }
        }
        if (sql.isPresent() == file.isPresent()) {
            throw new IllegalArgumentException("Give exactly one of -e SQL and -f FILE");
        }
        return new SqlArguments(master, ferry, conf, routes, sql, file);
    }

    private static String value(String flag, List<String> rest)
    {
        if (rest.isEmpty()) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return rest.remove(0);
    }

    String master()
    {
        return master;
    }

    boolean ferry()
    {
        return ferry;
    }

    Map<String, String> conf()
    {
        return conf;
    }

    boolean routes()
    {
        return routes;
    }

    Optional<String> sql()
    {
        return sql;
    }

    Optional<String> file()
    {
        return file;
    }
}
