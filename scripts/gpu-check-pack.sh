#!/usr/bin/env bash
# Builds the runtime scripts/gpu-check.sh carries to a GPU machine with no JDK and no network: a jlink'd
# JRE, the minimal jar set (stored, foreign natives and unused CUDA presets removed) and Ferry's classes,
# xz-compressed into parts of at most FERRY_PACK_PART_MIB (default 57) MiB, one per device call (a call
# carries 64 MiB, the tracked tree of about 5 MiB included). See README "Checking on a GPU machine".
#
#     scripts/gpu-check-pack.sh [--build]
#
# --build first runs, with the Maven settings of the environment (MAVEN_OPTS):
#     mvn -B install -DskipTests
#     mvn -B -Pgpu-check -pl device package -DskipTests             (JUnit console launcher)
#     mvn -B -pl examples dependency:build-classpath ...             (target/ferry-classpath.txt, as bin/ferry build)
# Not offline: a fresh machine's Maven repository lacks the JUnit console launcher until this fetches it.
# Output: target/gpu-check-pack/part-N.tar, sizes.txt, manifest.txt, and the unpacked runtime/ it was made
# from (which scripts/gpu-check.sh --runtime target/gpu-check-pack/runtime runs here as a dry run).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${FERRY_PACK_DIR:-"$ROOT/target/gpu-check-pack"}
CLASSPATH_FILE="$ROOT/target/ferry-classpath.txt"

if [ "${1:-}" = "--build" ]; then
    (cd "$ROOT" && mvn -B -q install -DskipTests \
        && mvn -B -q -Pgpu-check -pl device package -DskipTests \
        && mvn -B -q -pl examples dependency:build-classpath -Dmdep.includeScope=compile -Dmdep.outputFile="$CLASSPATH_FILE")
fi
[ -f "$CLASSPATH_FILE" ] || { echo "gpu-check-pack: $CLASSPATH_FILE missing; run with --build (or bin/ferry build)" >&2; exit 2; }
command -v jlink >/dev/null || { echo "gpu-check-pack: jlink (a JDK 17+) is needed" >&2; exit 2; }

python3 "$ROOT/scripts/gpu_check_pack.py" --root "$ROOT" --classpath "$CLASSPATH_FILE" --out "$OUT" --part-mib "${FERRY_PACK_PART_MIB:-57}"
