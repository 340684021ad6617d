#!/usr/bin/env bash
# On the GPU machine: unpacks one part made by scripts/gpu-check-pack.sh (a tar of xz-compressed item tars)
# into the runtime directory (default target/gpu-check-runtime, an ignored path, so it stays between the
# calls of one warm machine). Uses python3's lzma and tarfile, since the machine need not have xz.
#
#     scripts/gpu-check-unpack.sh PART.tar [RUNTIME_DIR]
set -euo pipefail
PART=$1
RUNTIME=${2:-target/gpu-check-runtime}
mkdir -p "$RUNTIME"
python3 - "$PART" "$RUNTIME" <<'PY'
import io, lzma, sys, tarfile
part, runtime = sys.argv[1], sys.argv[2]
count = 0
with tarfile.open(part, "r:") as outer:
    for blob in outer.getmembers():
        with tarfile.open(fileobj=io.BytesIO(lzma.decompress(outer.extractfile(blob).read())), mode="r:") as inner:
            for member in inner.getmembers():
                if member.name.startswith("/") or ".." in member.name.split("/"):
                    sys.exit("refusing %s in %s" % (member.name, part))
            inner.extractall(runtime)
        count += 1
print("unpacked %d items of %s into %s" % (count, part, runtime))
PY
[ -x "$RUNTIME/jre/bin/java" ] && echo "runtime JRE present" || echo "runtime JRE not yet present (another part carries it)"
[ -f "$RUNTIME/classpath.txt" ] && echo "class path present" || echo "class path not yet present (another part carries it)"
