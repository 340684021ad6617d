package dev.ferry.examples.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The options every Spark benchmark here takes, parsed in one place: {@code --runs N},
 * {@code --master M}, {@code --query NAME}, {@code --data DIR}, {@code --conf k=v}.
 */
public abstract class SparkBenchOptions
{
    public int runs;
    public String master;
    public String query;
    public String data;
    public final Map<String, String> conf = new LinkedHashMap<>();

    protected SparkBenchOptions(int runs, String master)
    {
        this.runs = runs;
        this.master = master;
    }

    /** Takes the shared flag at {@code index}, if it is one: returns the index of its value, else -1. */
    protected final int acceptShared(String[] args, int index)
    {
        String flag = args[index];
        switch (flag) {
            case "--runs":
                runs = Integer.parseInt(BenchArguments.value(args, index + 1, flag));
                return index + 1;
            case "--master":
                master = BenchArguments.value(args, index + 1, flag);
                return index + 1;
            case "--query":
                query = BenchArguments.value(args, index + 1, flag);
                return index + 1;
            case "--data":
                data = BenchArguments.value(args, index + 1, flag);
                return index + 1;
            case "--conf":
                BenchArguments.putConf(BenchArguments.value(args, index + 1, flag), conf);
                return index + 1;
            default:
                return -1;
        }
    }
}
