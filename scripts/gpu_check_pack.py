"""
Packs the runtime scripts/gpu-check.sh needs on a GPU machine that has no JDK and no network, from the
current build, into archives that each fit one device call (which carries at most 64 MiB, tracked tree
included). Called by scripts/gpu-check-pack.sh, which builds first; see that script for the steps.

Layout of the runtime (what scripts/gpu-check-unpack.sh recreates on the device):
  jre/              a jlink'd Java runtime (the modules Spark, Arrow, Parquet and Ferry load)
  lib/NNN-name.jar  the minimal jar set, each rewritten STORED (so xz sees the bytes) without native
                    libraries of other platforms, the CUDA JNI jar trimmed to cudart, cufile, NVML, NVRTC and nvCOMP
  classes/*         Ferry's classes the checks run from (device tests, gds corpus test, examples)
  classpath.txt     the class path, relative to the runtime, in order (in the last part)
Beside the parts: sizes.txt (part sizes) and manifest.txt (also what was dropped or trimmed).
Each part is a tar of items each xz-compressed on its own (exact sizes), filled first-fit, largest first.

Usage: python3 scripts/gpu_check_pack.py --root DIR --classpath FILE --out DIR [--part-mib N] [--jlink PATH] [--no-parts]
"""
import argparse
import concurrent.futures
import io
import lzma
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

# Jars the checks never load (local-mode and local-cluster Spark SQL, Parquet, Arrow, Ferry): RocksDB/LevelDB
# state stores, OpenSSL bindings, ZooKeeper recovery, Python gateways, test frameworks, and DuckDB's JDBC driver
# (238 MiB stored: only bench scan --writers writes files with it). Not Ivy: Spark 4.2's config package names an
# Ivy class in its static initializer (the dry run found it).
DROPPED = re.compile(r"^(rocksdbjni|leveldbjni|netty-tcnative|zookeeper|curator|py4j|pickle|junit-4|hamcrest|"
                     r"mockito|byte-buddy|objenesis|netty-transport-native-kqueue|netty-resolver-dns-native-macos|duckdb_jdbc)")
NATIVE = re.compile(r"\.(so(\.\d+)*|dylib|dll|jnilib|a)$")
FOREIGN = re.compile(r"(?i)(osx|macos|darwin|mac-|windows|win32|win64|win-|aarch|arm64|armhf|arm32|/arm/|ppc|s390|riscv|loongarch|"
                     r"mips|freebsd|sunos|solaris|aix|android|ios-|i386|i686|linux-x86/|linux32|/x86/)")
# Of the CUDA presets' JNI libraries Ferry loads only these: cudart (with the driver API the kernels launch
# through), cuFile, NVML, NVRTC (the kernels' compiler) and nvCOMP; the plugin jar keeps the same five.
CUDA_JNI_KEPT = {"libjnicudart.so", "libjnicufile.so", "libjninvml.so", "libjninvrtc.so", "libjninvcomp.so"}
# jdk.incubator.vector: Spark 4's launcher options (JavaModuleOptions, also for local-cluster executors) add it,
# and a JVM asked to --add-modules a module it lacks does not start.
JLINK_MODULES = ("java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management,java.naming,"
                 "java.net.http,java.rmi,java.scripting,java.security.jgss,java.security.sasl,java.sql,java.xml,"
                 "jdk.crypto.ec,jdk.incubator.vector,jdk.management,jdk.security.auth,jdk.unsupported,jdk.zipfs")
MIB = 1 << 20


def keep_entry(jar_name, entry):
    if entry.endswith("/"):
        # Directory entries stay: resources are looked up as directories (the local-cluster Master's web UI
        # finds org/apache/spark/ui/static so; the dry run found it).
        return True
    base = entry.rsplit("/", 1)[-1]
    if entry.startswith("org/bytedeco/cuda/") and NATIVE.search(base):
        return base in CUDA_JNI_KEPT
    if entry.startswith("META-INF/native-image/"):
        return False
    if NATIVE.search(base) and FOREIGN.search(entry):
        return False
    return True


def restore_jar(source, target):
    """Rewrites a jar STORED, without foreign natives; returns (entries kept, entries dropped)."""
    kept = dropped = 0
    with zipfile.ZipFile(source) as jar, zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as out:
        for info in jar.infolist():
            if not keep_entry(os.path.basename(source), info.filename):
                dropped += 0 if info.filename.endswith("/") else 1
                continue
            out.writestr(zipfile.ZipInfo(info.filename, date_time=info.date_time), jar.read(info), zipfile.ZIP_STORED)
            kept += 1
    return kept, dropped


def tree_bytes(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for directory, _, files in os.walk(path):
        for name in files:
            full = os.path.join(directory, name)
            if not os.path.islink(full):
                total += os.path.getsize(full)
    return total


def tar_bytes(stage, relative):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(os.path.join(stage, relative), arcname=relative)
    return buffer.getvalue()


def compress_item(job):
    stage, item, blob = job
    with open(blob, "wb") as handle:
        handle.write(lzma.compress(tar_bytes(stage, item), preset=6))
    return item, (blob, os.path.getsize(blob))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--classpath", required=True, help="the examples' compile class path (bin/ferry build writes target/ferry-classpath.txt)")
    parser.add_argument("--out", required=True)
    parser.add_argument("--part-mib", type=float, default=57.0)
    parser.add_argument("--jlink", default=shutil.which("jlink") or "jlink")
    parser.add_argument("--no-parts", action="store_true", help="build the runtime directory only (for a dry run), no archives")
    args = parser.parse_args()

    root = os.path.abspath(args.root)
    out = os.path.abspath(args.out)
    stage = os.path.join(out, "runtime")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(stage, "lib"))
    os.makedirs(os.path.join(stage, "classes"))
    manifest = []

    # 1. Ferry's own classes: device (and its tests, the contract suite), the gds corpus test, the examples.
    class_dirs = [
        ("examples", "examples/target/classes"),
        ("device-tests", "device/target/test-classes"),
        ("gds-tests", "datasource-gds/target/test-classes"),
    ]
    classpath = []
    for name, relative in class_dirs:
        source = os.path.join(root, relative)
        if not os.path.isdir(source):
            sys.exit("gpu-check-pack: %s is missing; build first (scripts/gpu-check-pack.sh --build)" % relative)
        # The pyarrow corpus is generated on the device (pyarrow is installed there), not carried.
        ignore = shutil.ignore_patterns("pyarrow") if name == "gds-tests" else None
        shutil.copytree(source, os.path.join(stage, "classes", name), ignore=ignore)
        classpath.append("classes/" + name)

    # 2. The jars: Ferry's modules and the third-party set, trimmed.
    entries = [line for line in open(args.classpath).read().replace("\n", ":").split(":") if line.strip()]
    console = [os.path.join(root, "device/target/gpu-check-lib", name) for name in sorted(os.listdir(os.path.join(root, "device/target/gpu-check-lib")))
               if name.startswith("junit-platform-console-standalone")] if os.path.isdir(os.path.join(root, "device/target/gpu-check-lib")) else []
    if not console:
        sys.exit("gpu-check-pack: the JUnit console launcher is missing; build with mvn -o -Pgpu-check -pl device package -DskipTests")
    seen = set()
    raw_bytes = kept_bytes = 0
    for index, path in enumerate(entries + console):
        name = os.path.basename(path)
        if name in seen or not path.endswith(".jar"):
            if os.path.isdir(path):
                sys.exit("gpu-check-pack: class path entry %s is a directory; run from installed jars (mvn -o install)" % path)
            continue
        seen.add(name)
        if DROPPED.match(name):
            manifest.append("dropped %s (%d bytes)" % (name, os.path.getsize(path)))
            continue
        target_name = "%03d-%s" % (index, name)
        target = os.path.join(stage, "lib", target_name)
        kept, dropped = restore_jar(path, target)
        raw_bytes += os.path.getsize(path)
        kept_bytes += os.path.getsize(target)
        if dropped:
            manifest.append("trimmed %s: %d native libraries of other platforms or unused CUDA presets removed" % (name, dropped))
        classpath.append("lib/" + target_name)

    # 3. The Java runtime.
    jre = os.path.join(stage, "jre")
    subprocess.run([args.jlink, "--add-modules", JLINK_MODULES, "--strip-debug", "--no-header-files", "--no-man-pages",
                    "--compress=0", "--output", jre], check=True)
    with open(os.path.join(stage, "classpath.txt"), "w") as listing:
        listing.write("\n".join(classpath) + "\n")

    if args.no_parts:
        print("runtime %s: %.1f MiB unpacked (no parts made)" % (stage, tree_bytes(stage) / MIB))
        return

    # 4. Parts. Each item (the JRE, a classes directory, a jar) is a tar compressed on its own with xz -6, so its
    #    carried size is known exactly; parts are then filled first-fit, largest first, up to the limit.
    items = ["jre", "classpath.txt"] + ["classes/" + name for name, _ in class_dirs] + ["lib/" + name for name in sorted(os.listdir(os.path.join(stage, "lib")))]
    blobs = os.path.join(out, "items")
    os.makedirs(blobs)
    jobs = [(stage, item, os.path.join(blobs, "%03d.tar.xz" % number)) for number, item in enumerate(items)]
    with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
        sizes_by_item = dict(pool.map(compress_item, jobs))
    limit = int(args.part_mib * MIB)
    # A tar member costs its headers (PAX adds some) and up to 511 bytes of padding; the end is padded to whole
    # 10 KiB records. Reckoned generously: a part of 9 items came out 23.6 KB over its members.
    carried = lambda item: sizes_by_item[item][1] + 4096
    parts = []
    for item in sorted(items, key=lambda item: -sizes_by_item[item][1]):
        for part in parts:
            if sum(carried(i) for i in part) + carried(item) <= limit - 32768:
                part.append(item)
                break
        else:
            parts.append([item])
    sizes = []
    for number, part in enumerate(parts, 1):
        archive = os.path.join(out, "part-%d.tar" % number)
        with tarfile.open(archive, "w") as tar:
            for item in part:
                blob, _ = sizes_by_item[item]
                tar.add(blob, arcname=os.path.basename(blob))
        sizes.append((archive, os.path.getsize(archive), sum(tree_bytes(os.path.join(stage, item)) for item in part), len(part)))
    shutil.rmtree(blobs)
    total_stage = tree_bytes(stage)
    lines = ["runtime %s: %.1f MiB unpacked (jre %.1f MiB, %d jars %.1f MiB stored from %.1f MiB as built, classes %.1f MiB)"
             % (stage, total_stage / MIB, tree_bytes(jre) / MIB, len(os.listdir(os.path.join(stage, "lib"))), kept_bytes / MIB, raw_bytes / MIB,
                tree_bytes(os.path.join(stage, "classes")) / MIB)]
    for archive, size, unpacked, count in sizes:
        lines.append("%s: %.1f MiB (%d xz items, %.1f MiB unpacked)%s" % (os.path.basename(archive), size / MIB, count, unpacked / MIB,
                                                                          "" if size <= limit else "  <-- OVER the %.0f MiB part limit" % args.part_mib))
    lines.append("total carried: %.1f MiB in %d device call(s)" % (sum(size for _, size, _, _ in sizes) / MIB, len(sizes)))
    with open(os.path.join(out, "manifest.txt"), "w") as handle:
        handle.write("\n".join(lines + manifest) + "\n")
    with open(os.path.join(out, "sizes.txt"), "w") as handle:
        handle.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    if any(size > limit for _, size, _, _ in sizes):
        sys.exit("gpu-check-pack: a part is over the limit; lower --part-mib")


if __name__ == "__main__":
    main()
