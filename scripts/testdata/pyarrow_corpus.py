"""
Writes the parquet-cpp corpus of datasource-gds's tests (datasource-gds/src/test/resources/corpus/pyarrow):
the same 400 rows of every Arrow type Parquet can hold, through every codec, page version, encoding and
writer option pyarrow offers, plus files of types Spark refuses. A second writer next to parquet-mr and
parquet-testing's files; ForeignWriterCorpusTest checks gds against spark.read.parquet on each.
Run (needs pyarrow, written with 25.0.1): python3 scripts/testdata/pyarrow_corpus.py [out-dir]
"""
import pyarrow as pa, pyarrow.parquet as pq, decimal, datetime, random, os, sys
random.seed(1)
N = 400
def col(f, n=N, nulls=True):
    return [None if nulls and i % 7 == 3 else f(i) for i in range(n)]
base = {
 "i8": pa.array(col(lambda i: (i % 200) - 100), pa.int8()),
 "i16": pa.array(col(lambda i: i * 7 - 9000), pa.int16()),
 "i32": pa.array(col(lambda i: i * 100003 - 2**30), pa.int32()),
 "i64": pa.array(col(lambda i: i * 10**12 - 2**62), pa.int64()),
 "u8": pa.array(col(lambda i: i % 256), pa.uint8()),
 "u16": pa.array(col(lambda i: (i * 31) % 65536), pa.uint16()),
 "u32": pa.array(col(lambda i: (i * 2654435761) % 2**32), pa.uint32()),
 "u64": pa.array(col(lambda i: (i * 11400714819323198485) % 2**64), pa.uint64()),
 "f32": pa.array(col(lambda i: float('nan') if i % 11 == 0 else (i - 1500) / 7.0), pa.float32()),
 "f64": pa.array(col(lambda i: -0.0 if i % 13 == 0 else (i - 1500) / 3.0), pa.float64()),
 "b": pa.array(col(lambda i: i % 3 == 0), pa.bool_()),
 "s": pa.array(col(lambda i: "v%d-%s" % (i % 50, "é" * (i % 4))), pa.string()),
 "ls": pa.array(col(lambda i: "large%d" % i), pa.large_string()),
 "bin": pa.array(col(lambda i: bytes([i % 256, (i * 7) % 256])), pa.binary()),
 "lbin": pa.array(col(lambda i: bytes(i % 5)), pa.large_binary()),
 "fsb": pa.array(col(lambda i: (i).to_bytes(16, 'big')), pa.binary(16)),
 "d32": pa.array(col(lambda i: datetime.date(1900, 1, 1) + datetime.timedelta(days=i * 37)), pa.date32()),
 "d64": pa.array(col(lambda i: datetime.date(2000, 1, 1) + datetime.timedelta(days=i)), pa.date64()),
 "ts_ms": pa.array(col(lambda i: datetime.datetime(2001, 1, 1) + datetime.timedelta(seconds=i * 3601, milliseconds=i)), pa.timestamp('ms')),
 "ts_us_tz": pa.array(col(lambda i: datetime.datetime(1960, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(microseconds=i * 123456789)), pa.timestamp('us', tz='UTC')),

 "ts_s": pa.array(col(lambda i: datetime.datetime(2010, 1, 1) + datetime.timedelta(seconds=i)), pa.timestamp('s')),
 "dec9": pa.array(col(lambda i: decimal.Decimal(i * 13 - 20000).scaleb(-2)), pa.decimal128(9, 2)),
 "dec18": pa.array(col(lambda i: decimal.Decimal(i * 10**10 - 7).scaleb(-4)), pa.decimal128(18, 4)),
 "dec38": pa.array(col(lambda i: decimal.Decimal((i - 1500) * 10**30 + i).scaleb(-10)), pa.decimal128(38, 10)),
 "dict_s": pa.array(col(lambda i: "cat%d" % (i % 5)), pa.string()).dictionary_encode(),
 "list_i": pa.array(col(lambda i: None if i % 5 == 0 else [j if j % 3 else None for j in range(i % 4)]), pa.list_(pa.int32())),
 "llist_s": pa.array(col(lambda i: ["x%d" % j for j in range(i % 3)]), pa.large_list(pa.string())),
 "fsl": pa.array(col(lambda i: [i, i + 1, i + 2]), pa.list_(pa.int64(), 3)),
 "st": pa.array(col(lambda i: {"a": i, "b": None if i % 4 == 0 else "s%d" % i, "c": [i, None]}), pa.struct([("a", pa.int32()), ("b", pa.string()), ("c", pa.list_(pa.int16()))])),
 "m": pa.array(col(lambda i: [("k%d" % j, j if j % 2 else None) for j in range(i % 3)]), pa.map_(pa.string(), pa.int32())),
 "nested": pa.array(col(lambda i: [{"p": [("q%d" % j) for j in range(k)], "r": float(k)} for k in range(i % 3)]), pa.list_(pa.struct([("p", pa.list_(pa.string())), ("r", pa.float64())]))),
 "allnull": pa.array([None] * N, pa.int32()),
}
t = pa.table(base)
out = sys.argv[1] if len(sys.argv) > 1 else "datasource-gds/src/test/resources/corpus/pyarrow"; os.makedirs(out, exist_ok=True)
def w(name, table, **kw):
    try:
        pq.write_table(table, os.path.join(out, name + ".parquet"), **kw)
    except Exception as e:
        sys.exit("cannot write %s: %s" % (name, e))
w("default", t)
for codec in ["snappy", "gzip", "zstd", "lz4", "brotli", "none"]:
    w("codec_" + codec, t, compression=codec, row_group_size=1000)
w("v2_pages_small", t, data_page_version="2.0", data_page_size=512, row_group_size=700, write_page_index=True)
w("v1_nodict", t, use_dictionary=False, data_page_size=1024)
w("v1_format", t, version="1.0")
w("no_stats", t, write_statistics=False)
w("int96", t, use_deprecated_int96_timestamps=True)
w("dec_as_int", t, store_decimal_as_integer=True)
w("checksum", t, write_page_checksum=True, data_page_size=2048)
ints = t.select(["i32", "i64", "d32", "ts_ms", "dec9", "dec18"])
w("delta_ints", ints, use_dictionary=False, column_encoding={"i32": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED", "d32": "DELTA_BINARY_PACKED", "ts_ms": "DELTA_BINARY_PACKED"}, data_page_version="2.0")
strs = t.select(["s", "ls", "bin", "fsb"])
w("delta_len_strings", strs.select(["s", "ls", "bin"]), use_dictionary=False, column_encoding="DELTA_LENGTH_BYTE_ARRAY")
w("delta_strings", strs, use_dictionary=False, column_encoding="DELTA_BYTE_ARRAY")
flts = t.select(["f32", "f64", "i32", "i64", "fsb", "dec38"])
w("bss", flts, use_dictionary=False, column_encoding="BYTE_STREAM_SPLIT")
w("bools_rle", t.select(["b"]), use_dictionary=False, column_encoding={"b": "RLE"}, data_page_version="2.0")
w("empty", t.slice(0, 0))
w("one_row", t.slice(5, 1))
big = pa.table({"id": pa.array(range(20000), pa.int64()), "s": pa.array(["row-%d" % (i % 1000) for i in range(20000)])})
w("many_rowgroups", big, row_group_size=1500, data_page_size=4096, write_page_index=True)
w("ts_nanos", pa.table({"t": pa.array([1, None], pa.timestamp("ns", tz="UTC"))}))
w("f16", pa.table({"h": pa.array([1.5, None, -2.0], pa.float16())}))
w("time", pa.table({"t32": pa.array([1000, None], pa.time32('ms')), "t64": pa.array([10**9, None], pa.time64('ns'))}))
w("nulltype", pa.table({"n": pa.array([None, None], pa.null()), "i": pa.array([1, 2], pa.int32())}))
w("dec256", pa.table({"d": pa.array([decimal.Decimal("1.5"), None], pa.decimal256(40, 2))}))
w("duration", pa.table({"d": pa.array([1, None], pa.duration('us'))}))
w("no_schema_store", t, store_schema=False)
print(sorted(os.listdir(out)))
