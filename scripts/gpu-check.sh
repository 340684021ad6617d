#!/usr/bin/env bash
# Ferry's whole pipeline on one real NVIDIA machine (driver, CUDA 13, pyarrow; no JDK, no network), in one
# command, writing a report: the device contract suite, the NVML/topology probe, copies/IPC/cuFile, the gds
# reader over a Parquet corpus generated there (every file compared with spark.read.parquet, routes gds and
# bounce), the shuffle with stage=device in local mode (ShuffleBenchmark) and in a two-executor local-cluster
# whose blocks take CUDA IPC across the JVMs (bin/ferry sql, bytes per route, CSV compared with Spark's
# shuffle), GpuDataLoad, and the scan benchmark; each compared with Spark's own path by the check itself.
#
# The runtime is carried: scripts/gpu-check-pack.sh builds it here (jlink'd JRE + minimal jars + Ferry's
# classes) as parts of at most 57 MiB; scripts/gpu-check-unpack.sh unpacks each part there, one device call
# per part, the last call then runs this script (see README "Checking on a GPU machine"):
#     scripts/gpu-check.sh --runtime target/gpu-check-runtime [--device cuda|simulated] [--deadline S] [OUT]
# --device simulated runs every stage on the simulated backend: the dry run of the same pipeline on a
# machine without a GPU (scripts/gpu-check.sh --runtime target/gpu-check-pack/runtime --device simulated).
# --deadline (default 540 s) bounds the whole run: a device call lasts at most 600 s; stages that would
# start after it are reported as not run. --scale N multiplies each stage's time cap (a slow machine's dry
# run); --only 'stage stage...' runs only those stages (a rerun). Without --runtime, the JDK on PATH and the build tree are used
# (device stages only need 'mvn -o -Pgpu-check -pl device -am package -DskipTests').
# Environment: FERRY_BENCH_SIZE (copy size, default 256m), FERRY_BENCH_DIR (where file reads go, default OUT),
# FERRY_DECODE_RATE_ROWS (rows per codec of the decode-rates corpus; default 2,000,000 on cuda, 200,000 simulated),
# FERRY_CORPUS_DIR (a pyarrow corpus to use instead of generating one: the dry run on a machine without pyarrow).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNTIME=""
DEVICE=cuda
DEADLINE=540
SCALE=1
ONLY=""
OUT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --runtime) RUNTIME=$(cd "$2" && pwd); shift 2 ;;
        --device) DEVICE=$2; shift 2 ;;
        --deadline) DEADLINE=$2; shift 2 ;;
        --scale) SCALE=$2; shift 2 ;;
        --only) ONLY=" $2 "; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) OUT=$1; shift ;;
    esac
done
case "$DEVICE" in cuda|simulated) ;; *) echo "gpu-check: --device is cuda or simulated, got $DEVICE" >&2; exit 2 ;; esac
OUT=${OUT:-"$ROOT/target/gpu-check"}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BENCH_DIR=${FERRY_BENCH_DIR:-"$OUT"}
BENCH_SIZE=${FERRY_BENCH_SIZE:-256m}
START=$(date +%s)
fail() { echo "gpu-check: $*" >&2; exit 2; }

if [ -n "$RUNTIME" ]; then
    [ -f "$RUNTIME/classpath.txt" ] || fail "$RUNTIME/classpath.txt missing: not every part was unpacked (scripts/gpu-check-unpack.sh)"
    JAVA="$RUNTIME/jre/bin/java"
    CP=$(sed "s|^|$RUNTIME/|" "$RUNTIME/classpath.txt" | paste -sd: -)
    DEVICE_TESTS="$RUNTIME/classes/device-tests"
    FULL=1
else
    JAVA=${JAVA:-java}
    LIB="$ROOT/device/target/gpu-check-lib"
    [ -d "$ROOT/device/target/test-classes" ] && ls "$LIB"/junit-platform-console-standalone-*.jar >/dev/null 2>&1 \
        || fail "no --runtime and no device build: run 'mvn -o -Pgpu-check -pl device -am package -DskipTests'"
    CP="$ROOT/device/target/classes:$ROOT/device/target/test-classes:$LIB/*"
    DEVICE_TESTS="$ROOT/device/target/test-classes"
    FULL=0
fi
"$JAVA" -version >/dev/null 2>&1 || fail "no Java at $JAVA"
export JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v "$JAVA" || echo "$JAVA")")")")
export PATH="$JAVA_HOME/bin:$PATH"
# JavaCPP's JNI libraries link against the CUDA runtime and cuFile of the machine (the first run needed this).
for CUDA_LIB in /usr/local/cuda/lib64 /usr/local/cuda-13*/lib64; do
    [ -d "$CUDA_LIB" ] && export LD_LIBRARY_PATH="$CUDA_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" && break
done
# Spark on Java 17 (the options of the build's tests), plus the raw O_DIRECT descriptor cuFile needs (RawFileDescriptors).
SPARK_OPENS=(-XX:+IgnoreUnrecognizedVMOptions --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
    --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED
    --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
    --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED
    --add-opens=java.base/sun.util.calendar=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true)
JAVA_OPTS=(-Xmx8g "${SPARK_OPENS[@]}" -Dspark.ferry.device="$DEVICE")
# cuFile needs /run/udev to find NVMe devices; containers often lack it. An empty one lets the driver open (compat mode).
if [ "$DEVICE" = cuda ] && [ ! -e /run/udev ]; then
    mkdir -p /run/udev 2>/dev/null && UDEV="created an empty /run/udev" || UDEV="/run/udev missing and not creatable: cuFile will not open"
else
    UDEV="/run/udev: $( [ -e /run/udev ] && echo present || echo absent)"
fi

REPORT="$OUT/report.md"
SUMMARY="$OUT/summary.tsv"
: > "$SUMMARY"
{
    echo "# Ferry GPU check ($DEVICE backend)"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ), host: $(hostname), cores: $(nproc)"
    echo "- java: $("$JAVA" -version 2>&1 | head -1) at $JAVA"
    echo "- runtime: ${RUNTIME:-build tree (device stages only)}"
    echo "- $UDEV"
    if command -v nvidia-smi >/dev/null 2>&1; then
        echo "- GPUs:"
        nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader | sed 's/^/    - /'
    else
        echo "- nvidia-smi: not found"
    fi
    echo "- python: $(python3 -c 'import sys, pyarrow; print(sys.version.split()[0], "pyarrow", pyarrow.__version__)' 2>&1 | tail -1)"
} > "$REPORT"

# Runs one stage with what is left of the deadline (at most its own cap); records its status and tail.
stage() {
    local name=$1 cap=$(($2 * SCALE))
    shift 2
    if [ -n "$ONLY" ] && [[ "$ONLY" != *" $name "* ]]; then
        return
    fi
    local left=$((DEADLINE - ($(date +%s) - START)))
    if [ "$left" -lt 20 ]; then
        printf '%s\tnot run: out of time\t0\n' "$name" >> "$SUMMARY"
        return
    fi
    [ "$cap" -gt "$left" ] && cap=$left
    local began=$(date +%s)
    timeout --kill-after=10 "$cap" "$@" > "$OUT/$name.log" 2>&1
    local status=$?
    local took=$(($(date +%s) - began))
    local verdict="passed"
    [ "$status" -eq 0 ] || verdict="FAILED (exit $status$( [ "$status" -eq 124 ] && echo ", timed out after ${cap}s"))"
    printf '%s\t%s\t%s\n' "$name" "$verdict" "$took" >> "$SUMMARY"
    {
        echo
        echo "## $name: $verdict in ${took}s"
        echo
        echo '```'
        grep -E "$TAIL_PATTERN" "$OUT/$name.log" | tail -40 || true
        echo '```'
    } >> "$REPORT"
}
TAIL_PATTERN='^\||The check|verification|PASS|FAIL|unavailable|kernel check|tests (successful|failed|skipped|found)|Assumption failed|FAILED|MISMATCH|disagree|agreed|verdict|GB/s|Exception|Error|route|q[0-9]|total|ratio|consumer|checksum|match|device'

# The GPUs CUDA will show this process: CUDA_VISIBLE_DEVICES's entries where it is set, else nvidia-smi's list (0 without it).
visible_gpu_count() {
    if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
        echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c '[^[:space:]]'
    elif command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi -L 2>/dev/null | grep -c '^GPU '
    else
        echo 0
    fi
}

JUNIT=(org.junit.platform.console.ConsoleLauncher execute --disable-banner --details=summary)

# 1. The device contract suite, narrowed to this backend. It includes the reader's side of CUDA IPC as the shuffle
#    uses it (TestDeviceContract.ipcImportsOnTheReadersDeviceShareOneMappingAndCopyOut): a child JVM exports four
#    blocks of one slab, this JVM imports them on its own device (cudaIpcOpenMemHandle with lazy peer access on the
#    reader's context), must count one mapping for the four, and copies each out with DeviceRuntime.copyFromPeer and
#    a D->H. With one GPU the "peer" copy is a device-local copy out of the IPC mapping: it proves the reader-context
#    import, the kept mapping and the copy path, not NVLink or PCIe P2P between two GPUs (its output line says so).
#    The kernel sources' build checks (their listing, nvcc/c++ over the .cu files, their #defines against the Java side) read
#    the sources as a directory of the build tree and are the build's, not the device's: left out here (the
#    carried runtime has the sources inside the device jar; the dry run found them failing there).
stage contract 180 "$JAVA" "${JAVA_OPTS[@]}" -cp "$CP" "${JUNIT[@]}" --scan-classpath "$DEVICE_TESTS" --reports-dir "$OUT/junit-device" \
    --exclude-classname '.*\.(TestKernelSource|TestKernelSourcesCompile|TestKernelErrorFlags|TestKernelsOnHostEmulation)$'

# 2. What the probes see: NVML, sysfs, routes.
if [ "$FULL" = 1 ]; then
    stage topology 40 sh -c "\"$JAVA\" -cp \"$CP\" dev.ferry.topology.cli.TopologyCommand --json > \"$OUT/topology.json\" && \"$JAVA\" -cp \"$CP\" dev.ferry.topology.cli.TopologyCommand"
fi

# 3. Copies, IPC into a child JVM and a file read through the device file path (the cuFile verdict).
stage copies 90 "$JAVA" "${JAVA_OPTS[@]}" -Dferry.bench.dir="$BENCH_DIR" -cp "$CP" dev.ferry.device.bench.CopyBenchmark \
    --backends "$DEVICE" --size "$BENCH_SIZE" --iterations 10 --ipc true --file-read true

# 3b. The kernels: parquet_levels.cu compiled by NVRTC for this device, launched through the driver API on generated
#     levels and values (nulls, widths 1-16), copied back and compared byte for byte with the Java reference
#     (PASS/FAIL per case). Prints "unavailable: <reason>" and passes where NVRTC or the driver does not load.
stage kernels 60 "$JAVA" "${JAVA_OPTS[@]}" -cp "$CP" dev.ferry.device.kernel.KernelCheck

if [ "$FULL" = 1 ]; then
    # 4. The gds reader over a corpus pyarrow writes here, every file against spark.read.parquet, on the device routes.
    CORPUS_ROOT="$OUT/corpus-root"
    rm -rf "$CORPUS_ROOT" && mkdir -p "$CORPUS_ROOT/corpus/pyarrow"
    if [ -n "${FERRY_CORPUS_DIR:-}" ]; then
        # A machine without pyarrow (the dry run here): the corpus the build's tests carry.
        stage corpus-generate 30 cp -r "$FERRY_CORPUS_DIR/." "$CORPUS_ROOT/corpus/pyarrow/"
    else
        stage corpus-generate 60 python3 "$ROOT/scripts/testdata/pyarrow_corpus.py" "$CORPUS_ROOT/corpus/pyarrow"
    fi
    for ROUTE in gds bounce; do
        stage "corpus-$ROUTE" 120 "$JAVA" "${JAVA_OPTS[@]}" -Dspark.ferry.gds.route="$ROUTE" -cp "$CORPUS_ROOT:$CP" "${JUNIT[@]}" \
            --select-class dev.ferry.gds.spark.ForeignWriterCorpusTest --reports-dir "$OUT/junit-corpus-$ROUTE"
    done

    # 4b. The device decoder (issue 18): on the cuda backend the gds reader's device batches decoded by the CUDA kernels
    #     (NVRTC-compiled parquet_rle/scan/gather/plain.cu, launched through the driver API) over the pyarrow corpus,
    #     parquet-testing (where carried) and Spark-written files, every buffer compared byte for byte with the CPU
    #     decoder's, fallbacks counted by reason, decoded GB/s of both paths printed. Skipped with the reason where the
    #     kernels cannot run (the simulated dry run).
    #     Its second test is the resident path: each file read through the GDS route (cuFile, or its POSIX fallback), the
    #     chunks the kernels take left in GPU memory, walked by parquet_headers.cu, staged by parquet_copy.cu (one launch),
    #     decoded in place, row data copied back printed (0 expected for those chunks).
    stage device-decode 180 "$JAVA" "${JAVA_OPTS[@]}" -cp "$CORPUS_ROOT:$CP" "${JUNIT[@]}" \
        --select-class dev.ferry.gds.read.DeviceDecodeGpuCheck --reports-dir "$OUT/junit-device-decode"

    # 4b''. The page-header walk alone (parquet_headers.cu, NVRTC, one thread per chunk) over the corpora against
    #     parquet-mr's Thrift reading of the same bytes, pages/s printed.
    stage device-headers 90 "$JAVA" "${JAVA_OPTS[@]}" -cp "$CORPUS_ROOT:$CP" "${JUNIT[@]}" \
        --select-class dev.ferry.gds.decode.cuda.DevicePageHeadersGpuCheck --reports-dir "$OUT/junit-device-headers"

    # 4b'. Decode rates (issue 18's targets): DecodeRateGpuCheck generates a lineitem-like table here (longs, ints, INT64
    #     decimals, doubles, dates, strings, nulls; FERRY_DECODE_RATE_ROWS rows, default 2,000,000, about 270 MB decoded)
    #     written uncompressed, snappy and zstd, loads the files into host memory, and per codec times the device path
    #     (pages in host memory -> Arrow buffers in device memory, one stream per thread) and the CPU decoder (one thread
    #     per core), beside the pinned H2D rate measured in the same run (CopyBenchmark's); prints the table and the verdict:
    #     device GB/s >= pinned H2D and >= 10x the CPU decoder, a miss fails the stage on cuda. Each pass takes no new file
    #     after its budget (5 s), so a slow path cannot overrun the cap. --device simulated: the same code as a dry run
    #     (200,000 rows; the figures are meaningless and it says so). The repartition rate against D2D is the partition stage's.
    DECODE_RATE_ROWS=${FERRY_DECODE_RATE_ROWS:-$([ "$DEVICE" = cuda ] && echo 2000000 || echo 200000)}
    stage decode-rates 150 "$JAVA" "${JAVA_OPTS[@]}" -Dferry.decode.rates.rows="$DECODE_RATE_ROWS" -cp "$CP" "${JUNIT[@]}" \
        --select-class dev.ferry.gds.read.DecodeRateGpuCheck --reports-dir "$OUT/junit-decode-rates"

    # 4c. The partition kernels (issue 18 item 5): spark_partition.cu compiled by NVRTC and launched through the driver
    #     API by DeviceBatchRepartitioner on device batches: every key kind and a two-key case against the Java
    #     reference (Spark's Murmur3/pmod partition ids, input order within partitions, every column byte for byte),
    #     then 2M rows into 64 partitions timed (rows/s, GB/s) beside the D2D copy rate measured in the same run.
    #     --device simulated runs the same check on the kernels' Java emulation (100k rows timed), the dry run here.
    PARTITION_ROWS=$([ "$DEVICE" = cuda ] && echo 2097152 || echo 100000)
    stage partition 120 "$JAVA" "${JAVA_OPTS[@]}" -Dferry.partition.check.backend="$DEVICE" -Dferry.partition.check.rows="$PARTITION_ROWS" -cp "$CP" "${JUNIT[@]}" \
        --select-class dev.ferry.gds.repartition.PartitionGpuCheck --reports-dir "$OUT/junit-partition"
    #     With more than one GPU visible, the same check again on the last one (partition-last): the kernels load into
    #     and launch in that device's own context, as on an executor Spark gave a GPU other than 0. A single GPU (or the
    #     simulated dry run) runs only the stage above.
    if [ "$DEVICE" = cuda ] && [ "$(visible_gpu_count)" -gt 1 ]; then
        stage partition-last 120 "$JAVA" "${JAVA_OPTS[@]}" -Dferry.partition.check.backend="$DEVICE" -Dferry.partition.check.device=last \
            -Dferry.partition.check.rows="$PARTITION_ROWS" -cp "$CP" "${JUNIT[@]}" \
            --select-class dev.ferry.gds.repartition.PartitionGpuCheck --reports-dir "$OUT/junit-partition-last"
    fi

    # 4d. The consumer API (issue 18 item 4): DeviceBatches over a Spark-written sample on the cuda backend, decoded by
    #     the kernels into GPU memory and handed over as ARROW_DEVICE_CUDA arrays (device pointers, no host copy; the
    #     decoded-byte counters say where every byte went). Skipped with the reason where the kernels cannot run.
    stage device-batches 150 "$JAVA" "${JAVA_OPTS[@]}" -cp "$CP" "${JUNIT[@]}" \
        --select-class dev.ferry.gds.api.DeviceBatchesGpuCheck --reports-dir "$OUT/junit-device-batches"

    # 5. The shuffle with stage=device against Spark's sort shuffle: the benchmark's queries in local mode (results
    #    compared by the benchmark), then a group-by over two executor JVMs on the one GPU, placed on two GPUs of a
    #    topology file's node so their blocks take the device routes (CUDA IPC across the JVMs, imported on the
    #    reader's own device), against Spark's own shuffle; the bytes per route are recorded (the CPU reduce reports
    #    the IPC blocks as PEER_GPU_D2H: one D->H out of the writer's GPU).
    SHUFFLE_CONF=(--conf spark.ferry.shuffle.stage=device --conf spark.ferry.device="$DEVICE")
    stage shuffle-local 120 "$JAVA" "${JAVA_OPTS[@]}" -cp "$CP" dev.ferry.examples.bench.ShuffleBenchmark --quick --runs 1 --master 'local[4]' "${SHUFFLE_CONF[@]}"
    SQL='SELECT k, count(*) AS n, sum(v) AS s, min(t) AS t FROM (SELECT id % 2000 AS k, id * 3 AS v, cast(id AS string) AS t FROM range(0, 3000000, 1, 8)) GROUP BY k ORDER BY k'
    stage shuffle-cluster 180 bash -c '
        set -e
        "$0" "${@:1:$#-1}" --master "local-cluster[2,2,3072]" --ferry on --routes -e "${@: -1}" > "'"$OUT"'/sql-ferry.csv" 2> "'"$OUT"'/sql-ferry.err"
        "$0" "${@:1:$#-1}" --master "local[4]" --ferry off -e "${@: -1}" > "'"$OUT"'/sql-spark.csv" 2> "'"$OUT"'/sql-spark.err"
        grep -iE "route|bytes" "'"$OUT"'/sql-ferry.err" || true
        if cmp -s "'"$OUT"'/sql-ferry.csv" "'"$OUT"'/sql-spark.csv" && [ -s "'"$OUT"'/sql-spark.csv" ]; then
            echo "results agreed: $(wc -l < "'"$OUT"'/sql-spark.csv") lines"
        else
            echo "MISMATCH between Ferry (sql-ferry.csv) and Spark (sql-spark.csv)"; exit 1
        fi' "$JAVA" "${JAVA_OPTS[@]}" -cp "$CP" dev.ferry.examples.sql.SqlCommand \
        --conf spark.ferry.shuffle.stage=device --conf spark.ferry.device="$DEVICE" \
        --conf spark.ferry.topology.file="$ROOT/examples/topologies/dgx-h100-ib-2node.json" \
        --conf spark.ferry.shuffle.executorPlacement='0=dgx-a:GPU0,1=dgx-a:GPU1' "$SQL"

    # 6. GpuDataLoad: batches kept in device memory, handed over as Arrow device arrays, sums checked against Spark.
    stage dataload 90 "$JAVA" "${JAVA_OPTS[@]}" -cp "$CP" dev.ferry.examples.dataload.GpuDataLoad --device "$DEVICE" --rows 200000 --dir "$OUT/dataload"

    # 7. The scan benchmark on the device routes: gds against Spark's reader (results compared first), figures.
    for ROUTE in gds bounce; do
        stage "scan-$ROUTE" 120 "$JAVA" "${JAVA_OPTS[@]}" -cp "$CP" dev.ferry.examples.bench.ScanBenchmark scan --quick --runs 1 --warmups 1 \
            --data "$BENCH_DIR/scan-data" --route "$ROUTE" --conf spark.ferry.device="$DEVICE"
    done
fi

# A cuda run in which CUDA never started checked nothing: say so.
CUDA_NOTE=""
if [ "$DEVICE" = cuda ] && grep -qh "CUDA unavailable" "$OUT"/contract.log "$OUT"/copies.log 2>/dev/null; then
    CUDA_NOTE="**The cuda backend did not start:** $(grep -ho 'CUDA unavailable: [^<]*' "$OUT"/contract.log "$OUT"/copies.log | head -1)"
fi
{
    echo
    echo "## Summary ($(($(date +%s) - START)) s of a ${DEADLINE} s deadline)"
    echo
    echo "| stage | result | seconds |"
    echo "|---|---|---|"
    awk -F'\t' '{ print "| " $1 " | " $2 " | " $3 " |" }' "$SUMMARY"
    [ -z "$CUDA_NOTE" ] || { echo; echo "$CUDA_NOTE"; }
    echo
    echo "cuFile verdicts: $(grep -ho 'file read verdict[^|]*' "$OUT"/copies.log 2>/dev/null | head -3 | tr '\n' ';')"
} >> "$REPORT"
cat "$REPORT"
[ -z "$CUDA_NOTE" ] && ! grep -qv $'\tpassed\t' "$SUMMARY"
