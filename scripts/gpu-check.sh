#!/usr/bin/env bash
# Runs Ferry's device contract suite and the device microbenchmarks with spark.ferry.device=cuda on a
# real NVIDIA machine (driver, CUDA 13 runtime/cuFile libraries, Java 17), and writes a short report.
#
# No network and no Maven here: prepare the build output on a machine with ~/.m2 first,
#     mvn -o -Pgpu-check -pl device -am package -DskipTests
# then copy the working tree (with device/target) to the GPU machine and run
#     scripts/gpu-check.sh [output-dir]
# Environment:
#     FERRY_BENCH_DIR   where the cuFile benchmark writes its file (put it on the NVMe under test; default: output dir)
#     FERRY_BENCH_SIZE  bytes per copy in the benchmark (default 1g)
#     JAVA              java executable (default: java on PATH)
#     FERRY_GDS_DATA    Parquet directory for the GDS/bounce scan (default: generated into $FERRY_BENCH_DIR/gds-scan)
#     FERRY_GDS_GB      size of that generated data (default 1)
# The GDS/bounce section (3.) runs only when the scan benchmark was prepared as well:
#     mvn -o -q install -DskipTests && mvn -o -q -pl examples compile dependency:copy-dependencies \
#         -DincludeScope=compile -DoutputDirectory=target/gpu-check-lib
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEVICE="$ROOT/device"
LIB="$DEVICE/target/gpu-check-lib"
OUT=${1:-"$DEVICE/target/gpu-check"}
JAVA=${JAVA:-java}
BENCH_DIR=${FERRY_BENCH_DIR:-"$OUT"}
BENCH_SIZE=${FERRY_BENCH_SIZE:-1g}

fail() { echo "gpu-check: $*" >&2; exit 2; }

[ -d "$DEVICE/target/classes" ] && [ -d "$DEVICE/target/test-classes" ] \
    || fail "device/target/classes or test-classes missing; run 'mvn -o -Pgpu-check -pl device -am package -DskipTests' before copying the tree"
ls "$LIB"/junit-platform-console-standalone-*.jar >/dev/null 2>&1 \
    || fail "$LIB lacks the JUnit console launcher; build with -Pgpu-check (see the header of this script)"
"$JAVA" -version 2>&1 | grep -q 'version "\(1[7-9]\|2[0-9]\)' || fail "Java 17 or newer is required ($JAVA)"

mkdir -p "$OUT" "$BENCH_DIR"
CP="$DEVICE/target/classes:$DEVICE/target/test-classes:$LIB/*"
# cuFile needs the raw descriptor of an O_DIRECT channel (see RawFileDescriptors).
JAVA_OPTS=(-Xmx8g --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.io=ALL-UNNAMED -Dspark.ferry.device=cuda)

{
    echo "# Ferry GPU check"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "- host: $(hostname)"
    if command -v nvidia-smi >/dev/null 2>&1; then
        echo "- GPUs:"
        nvidia-smi --query-gpu=index,name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader | sed 's/^/    - /'
    else
        echo "- nvidia-smi: not found (no NVIDIA driver?)"
    fi
    if command -v nvcc >/dev/null 2>&1; then
        echo "- nvcc: $(nvcc --version | tail -1)"
    else
        echo "- nvcc: not found"
    fi
} > "$OUT/report.md"

# 1. The contract suite, narrowed to the cuda backend by -Dspark.ferry.device=cuda.
set +e
"$JAVA" "${JAVA_OPTS[@]}" -cp "$CP" org.junit.platform.console.ConsoleLauncher execute \
    --scan-classpath "$DEVICE/target/test-classes" --reports-dir "$OUT/junit" --details=tree --disable-banner \
    > "$OUT/contract.log" 2>&1
SUITE_STATUS=$?
set -e

XML=$(ls "$OUT"/junit/TEST-*.xml 2>/dev/null | head -1 || true)
{
    echo
    echo "## Contract suite (spark.ferry.device=cuda)"
    echo
    echo "exit status $SUITE_STATUS; full log: contract.log, JUnit XML: junit/"
    echo
    if [ -n "$XML" ]; then
        grep -o '<testsuite [^>]*>' "$XML" | head -1 | grep -o '\(tests\|skipped\|failures\|errors\)="[0-9]*"' | tr '\n' ' '
        echo
        echo
        echo "| test | result |"
        echo "|---|---|"
        # One row per test case: passed, skipped (with the reason) or failed.
        awk '
            /<testcase / { if (name != "") print "| " name " | " result " |"; match($0, /name="[^"]*"/); name = substr($0, RSTART + 6, RLENGTH - 7); cls = ""; match($0, /classname="[^"]*"/); cls = substr($0, RSTART + 11, RLENGTH - 12); n = split(cls, parts, "."); name = parts[n] " " name; result = "passed" }
            /<skipped/ { result = "skipped"; if (match($0, /message="[^"]*"/)) result = "skipped: " substr($0, RSTART + 9, RLENGTH - 10) }
            /<skipped><!\[CDATA\[/ { }
            /TestAbortedException: Assumption failed:/ { sub(/.*Assumption failed: /, ""); result = "skipped: " $0 }
            /<failure|<error/ { result = "FAILED" }
            END { if (name != "") print "| " name " | " result " |" }
        ' "$XML"
    else
        echo "no JUnit report was written; see contract.log"
    fi
} >> "$OUT/report.md"

# 2. Benchmarks: cuda routes as GB/s and as a fraction of host memcpy; the pinned H2D/D2H rows are
#    cudaMemcpyAsync from page-locked memory, i.e. the device's practical cudaMemcpy peak.
set +e
"$JAVA" "${JAVA_OPTS[@]}" -Dferry.bench.dir="$BENCH_DIR" -cp "$CP" dev.ferry.device.bench.CopyBenchmark \
    --backends cuda --size "$BENCH_SIZE" --iterations 20 --ipc true --file-read true \
    > "$OUT/benchmark.md" 2> "$OUT/benchmark.err"
BENCH_STATUS=$?
set -e
{
    echo
    echo "## Benchmarks (size $BENCH_SIZE, median of 20)"
    echo
    echo "exit status $BENCH_STATUS; stderr: benchmark.err"
    echo
    cat "$OUT/benchmark.md"
    PEAK=$(awk -F'|' '$2 ~ /cuda/ && $3 ~ /H2D \(pinned\)/ { gsub(/ /, "", $4); print $4 }' "$OUT/benchmark.md")
    if [ -n "$PEAK" ]; then
        echo
        echo "Against the device's cudaMemcpy peak (pinned H2D = $PEAK GB/s):"
        echo
        awk -F'|' -v peak="$PEAK" '$2 ~ /cuda/ { gsub(/^ +| +$/, "", $3); gsub(/ /, "", $4); printf "- %s: %.2f GB/s = %.2f x peak\n", $3, $4, $4 / peak }' "$OUT/benchmark.md"
    fi
    echo
    echo "cuFile read path verdict:"
    grep 'file read verdict' "$OUT/benchmark.err" | sed 's/^/    /' || echo "    (none: the cuda backend did not start; see benchmark.err)"
} >> "$OUT/report.md"

# A run where CUDA never started checked nothing: say so and fail, whatever the exit codes were.
CUDA_STATUS=0
if [ -z "$XML" ] || grep -q 'Assumption failed: CUDA unavailable' "$XML" || ! grep -q '^| cuda ' "$OUT/benchmark.md"; then
    CUDA_STATUS=1
    {
        echo
        echo "**FAILED: the cuda backend did not run.** $(grep -ho "CUDA unavailable: [^<]*" "$OUT/benchmark.err" "$OUT/contract.log" 2>/dev/null | head -1)"
    } >> "$OUT/report.md"
fi

# 3. GDS and bounce scans: the gds data source reading Parquet with spark.ferry.device=cuda, forced onto the
#    GDS route (cuFile into device buffers) and the BOUNCE route (host staging buffers + H2D copies), against
#    the drive's sequential O_DIRECT read rate measured with dd on the same files.
EXAMPLES="$ROOT/examples"
if [ -d "$EXAMPLES/target/classes/dev/ferry/examples/bench" ] && [ -d "$EXAMPLES/target/gpu-check-lib" ]; then
    GDS_DATA=${FERRY_GDS_DATA:-"$BENCH_DIR/gds-scan"}
    SPARK_OPENS=(--add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.lang.invoke=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED
        --add-opens java.base/java.util=ALL-UNNAMED --add-opens java.base/java.util.concurrent=ALL-UNNAMED --add-opens java.base/sun.util.calendar=ALL-UNNAMED
        --add-opens java.base/jdk.internal.ref=ALL-UNNAMED -Dio.netty.tryReflectionSetAccessible=true)
    SCAN_CP="$EXAMPLES/target/classes:$EXAMPLES/target/gpu-check-lib/*"
    GDS_STATUS=0
    {
        echo
        echo "## GDS / bounce scan (gds data source, spark.ferry.device=cuda)"
        echo
    } >> "$OUT/report.md"
    for ROUTE in gds bounce; do
        set +e
        "$JAVA" "${JAVA_OPTS[@]}" "${SPARK_OPENS[@]}" -cp "$SCAN_CP" dev.ferry.examples.bench.ScanBenchmark scan --gb "${FERRY_GDS_GB:-1}" \
            --data "$GDS_DATA" --route "$ROUTE" --runs 3 --conf spark.ferry.device=cuda > "$OUT/scan-$ROUTE.txt" 2> "$OUT/scan-$ROUTE.err"
        STATUS=$?
        set -e
        [ "$STATUS" -eq 0 ] || GDS_STATUS=$STATUS
        {
            echo "### route $ROUTE (exit status $STATUS; stderr: scan-$ROUTE.err)"
            echo
            echo '```'
            grep -E '^(data:|query|q[0-9]|total|gds read paths|ratio)' "$OUT/scan-$ROUTE.txt" || echo "(no results)"
            echo '```'
            echo
        } >> "$OUT/report.md"
    done
    # The drive's sequential read rate over the same files, page cache bypassed.
    DD_BYTES=0
    DD_START=$(date +%s.%N)
    while IFS= read -r FILE; do
        SIZE=$(stat -c %s "$FILE")
        dd if="$FILE" of=/dev/null bs=16M iflag=direct status=none 2>/dev/null || dd if="$FILE" of=/dev/null bs=16M status=none
        DD_BYTES=$((DD_BYTES + SIZE))
    done < <(find "$GDS_DATA" -name '*.parquet')
    DD_END=$(date +%s.%N)
    {
        awk -v bytes="$DD_BYTES" -v start="$DD_START" -v end="$DD_END" 'BEGIN { if (end > start && bytes > 0) printf "drive sequential read (dd, O_DIRECT): %.2f GB/s over %.2f GB\n", bytes / (end - start) / 1e9, bytes / 1e9 }'
        echo
        echo "Compare the 'gds read paths ... GB/s' lines (scan throughput, decode on the host included) with this rate;"
        echo "trueDirect > 0 proves cuFile DMA, compatMode means cuFile fell back inside, posix means Ferry's own fallback."
    } >> "$OUT/report.md"
else
    GDS_STATUS=0
    {
        echo
        echo "## GDS / bounce scan: skipped (examples not prepared; see the header of this script)"
    } >> "$OUT/report.md"
fi

cat "$OUT/report.md"
echo
echo "report: $OUT/report.md"
[ "$SUITE_STATUS" -eq 0 ] && [ "$BENCH_STATUS" -eq 0 ] && [ "$CUDA_STATUS" -eq 0 ] && [ "$GDS_STATUS" -eq 0 ]
