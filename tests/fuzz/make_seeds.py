#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus/<target>/ (small, valid-looking inputs each
target starts from; libFuzzer mutates them). Run from anywhere: /usr/bin/python3 make_seeds.py.
The embedding-table seed is a file written by `tfx embeddings convert` (pass the tfx binary)."""
import gzip, os, struct, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "..", "samples")


def put(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def floats(*xs):
    return struct.pack("<%df" % len(xs), *xs)


glove = "the 0.418 0.24968 -0.41242\nking 0.5 -1.5e-3 3\nqueen 0.25 1 -2\n"
glove_quirks = "\ufeffnew york 1 2 3\r\nnew york 4 5 6\r\n\xe9t\xe9 7 8 9 \r\n\n"
w2v = "3 3\nthe 0.418 0.24968 -0.41242\nking 0.5 -1.5e-3 3\nqueen 0.25 1 -2\n"
vec = "2 3\nthe 0.418 0.24968 -0.41242 \nking 0.5 -0.0015 3 \n"
w2v_bin = b"2 3\nthe " + floats(0.5, -1, 2) + b"\nking " + floats(1, 2, 3) + b"\n"
w2v_bin_nonl = b"2 2\nthe " + floats(0.5, -1) + b"king " + floats(1e-3, 2)

for limit in (0, 2):
    b = bytes([limit])
    put("embeddings_glove", f"glove_{limit}", b + glove.encode())
    put("embeddings_word2vec", f"w2v_{limit}", b + w2v.encode())
    put("embeddings_fasttext", f"vec_{limit}", b + vec.encode())
    put("embeddings_word2vec_bin", f"bin_{limit}", b + w2v_bin)
put("embeddings_glove", "quirks", b"\0" + glove_quirks.encode("utf-8", "surrogateescape"))
put("embeddings_word2vec_bin", "no_newline", b"\0" + w2v_bin_nonl)
for name, data in [("glove", glove.encode()), ("w2v", w2v.encode()), ("vec", vec.encode()), ("bin", w2v_bin),
                   ("quirks", glove_quirks.encode())]:
    put("embeddings_auto", name, b"\0" + data)
put("embeddings_gz", "compress_glove", b"\x01" + glove.encode())
put("embeddings_gz", "compress_bin_limit1", b"\x03" + w2v_bin)
put("embeddings_gz", "gz_w2v", b"\x00" + gzip.compress(w2v.encode(), mtime=0))
put("embeddings_gz", "gz_two_members", b"\x00" + gzip.compress(b"a 1 2\n", mtime=0) + gzip.compress(b"b 3 4\n", mtime=0))



def fasttext_bin(words=("ab", "cd"), dim=2, bucket=4, minn=3, maxn=4, magic=True):
    """A fastText .bin in fastText's save order (as tests/embeddings_fasttext_test.cpp writes it)."""
    i32 = lambda *v: struct.pack("<%di" % len(v), *v)
    i64 = lambda *v: struct.pack("<%dq" % len(v), *v)
    s = i32(793712314, 12) if magic else b""
    s += i32(dim, 5, 5, 1, 5, 1, 2, 2, bucket, minn, maxn, 100) + struct.pack("<d", 1e-4)
    s += i32(len(words), len(words), 0) + i64(100) + (i64(-1) if magic else b"")
    for w in words:
        s += w.encode() + b"\0" + i64(7) + b"\0"
    rows = len(words) + bucket
    s += (b"\0" if magic else b"") + i64(rows, dim)
    s += b"".join(floats(*[(r + 1) * (-1 if j % 2 else 1) for j in range(dim)]) for r in range(rows))
    s += (b"\0" if magic else b"") + i64(1, dim) + floats(*[0.5] * dim)
    return s


put("embeddings_fasttext_bin", "model_0", b"\0" + fasttext_bin())
put("embeddings_fasttext_bin", "model_limit1", b"\1" + fasttext_bin(words=("ab", "cd", "\u00e9t\u00e9"), dim=3))
put("embeddings_fasttext_bin", "old_no_magic", b"\0" + fasttext_bin(magic=False))
put("embeddings_auto", "fasttext_bin", b"\0" + fasttext_bin())
REF = os.path.join(HERE, "..", "reference")
for name in ("mha", "mha_f16", "mha_bf16"):
    put("safetensors", name, open(os.path.join(REF, name + ".safetensors"), "rb").read())


def with_metadata(raw, metadata):
    """The safetensors file `raw` with a __metadata__ entry added to its header."""
    import json
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    header["__metadata__"] = metadata
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + raw[8 + n:]


put("safetensors", "mha_nhead", with_metadata(open(os.path.join(REF, "mha.safetensors"), "rb").read(), {"nhead": "2"}))
put("vocab", "bert_like", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n.\ni\nlove\nplay\n##ing\nfoot\n##ball\n\ud55c\n##\uad6d\n##\uc5b4\n")
put("vocab", "crlf_no_unk", "a\r\nb\r\n##c")
put("tokenize", "word", "\0I love playing football.")
put("tokenize", "char_korean", "\1\ud55c\uad6d\uc5b4 \ud14d\uc2a4\ud2b8")
put("tokenize", "subword_lower", "\6Don't PLAYING footballs!")

if len(sys.argv) > 1:  # the table seeds need the tfx binary
    with tempfile.TemporaryDirectory() as t:
        src = os.path.join(t, "small.txt")
        with open(src, "w") as f:
            f.write(glove + "a 1 1 1\nb 2 2 2\nthe 9 9 9\n")
        out = os.path.join(t, "small.tfxemb")
        subprocess.run([sys.argv[1], "embeddings", "convert", src, out], check=True,
                       stdout=subprocess.DEVNULL)
        put("embeddings_table", "small", open(out, "rb").read())
        src = os.path.join(t, "model.bin")  # a table with fastText subword buckets
        with open(src, "wb") as f:
            f.write(fasttext_bin())
        subprocess.run([sys.argv[1], "embeddings", "convert", src, out], check=True, stdout=subprocess.DEVNULL)
        put("embeddings_table", "fasttext_buckets", open(out, "rb").read())

put("matrix_json", "nested", "[[1, 2.5, -3], [4e-3, 5, 6]]")
put("matrix_json", "one_row", "[0.5, -1, 2]")
put("matrix_json", "tfx_output", '{"command": "attention", "data": [[1, 2], [3, 4]], "rows": ["a", "b"], "columns": ["x", "y"]}')
put("matrix_json", "sample", open(os.path.join(SAMPLES, "attention", "k.json"), "rb").read())
put("matrix_csv", "sample_q", open(os.path.join(SAMPLES, "attention", "q.csv"), "rb").read())
put("matrix_csv", "sample_x", open(os.path.join(SAMPLES, "attention", "x.csv"), "rb").read())
put("matrix_csv", "tfx_output", "pos,0,1,2\n0,0.1,0.2,0.3\n1,1,2,3\n")
put("matrix_csv", "tsv_quoted", '"a b"\t1\t2\n"c,d"\t3\t4\n')
put("matrix_csv", "spaces", "1 2 3\n# comment\n\n4 5 6\n")
put("matrix_csv", "pandas", ",a,b\nr0,1,2\nr1,3,4\n")
put("matrix_npy", "sample", open(os.path.join(SAMPLES, "attention", "v.npy"), "rb").read())


def npy(descr, shape, payload, version=1):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    pre = 10 if version == 1 else 12
    header += " " * ((64 - (pre + len(header) + 1) % 64) % 64) + "\n"
    size = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode() + payload


put("matrix_npy", "f4_2x2", npy("<f4", "(2, 2)", floats(1, 2, 3, 4)))
put("matrix_npy", "f8_3", npy("<f8", "(3,)", struct.pack("<3d", 1, 2, 3)))
put("matrix_npy", "be_f4_v2", npy(">f4", "(1, 2)", struct.pack(">2f", 1, 2), version=2))

put("analogy_questions", "google", "\0: capital-common-countries\nAthens Greece Baghdad Iraq\n"
    "Athens Greece Bangkok Thailand\n: gram1-adjective-to-adverb\namazing amazingly apparent apparently\n")
put("analogy_questions", "skip_invalid", "\x01\ufeff# comment\r\n: s\r\na b c d\r\na b c\r\n\r\n")
put("word_pairs", "wordsim", "\0# Word 1\tWord 2\tHuman (mean)\nlove\tsex\t6.77\ntiger\tcat\t7.35\n")
put("word_pairs", "spaces_skip", "\x01king queen 8.5\nbad line\nman woman 1e1\n")
put("cli_batch", "queries", "king man woman\n# comment\n: capital\nparis france berlin germany\n\nman king woman\n")

lists = [(0, "1,0,0,1"), (1, "1.5,-2,3e-2,4"), (2, "4,2,3,5;2,1,-3,2"), (3, "3,1,-1,-2"), (4, "1,1,0,2"),
         (5, "first,second"), (6, "0,2,5\n0,1,2"), (7, "king,queen\nman woman"), (8, "4000,100"),
         (9, "man,woman"), (10, "king,queen,man"), (11, "king:queen,man:woman"), (12, "king,man"),
         (13, "king,queen,apple"), (14, "none,linear,ntk,yarn")]
for i, v in lists:
    put("cli_lists", f"flag{i}", bytes([i]) + v.encode())


# image: byte 0 bit 0 clear: the rest is the picture; set: bytes 1–2 (big-endian) pick where the
# picture after them is cut (fraction of 65536); the cut picture must be refused or read the same
def bmp(w, h, top_down=False, bpp=24):
    row = ((w * bpp + 31) // 32) * 4
    pixels = b"".join(bytes((x * 40 + y * 7 + k * 90) % 256 for x in range(w) for k in range(bpp // 8)).ljust(row, b"\0")
                      for y in range(h))
    info = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, bpp, 0, len(pixels), 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 14 + 40 + len(pixels), 0, 0, 54) + info + pixels


def png(w, h):
    import zlib
    raw = b"".join(b"\0" + bytes((x * 60 + y * 30 + k * 80) % 256 for x in range(w) for k in range(3)) for y in range(h))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


# a 2×2 GIF: 4 colours, LZW minimum code size 2, clear 4, pixels 0 1 2 3, end 5
gif = (b"GIF89a" + struct.pack("<HHBBB", 2, 2, 0x81, 0, 0) + bytes([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]) +
       b"\x21\xf9\x04\x00\x00\x00\x00\x00" + b"\x2c" + struct.pack("<HHHHB", 0, 0, 2, 2, 0) +
       b"\x02\x03\x84\x0c\x05\x00" + b"\x3b")
pnm = b"P6\n3 2\n255\n" + bytes(range(18))
tga = struct.pack("<BBBHHBHHHHBB", 0, 0, 2, 0, 0, 0, 0, 0, 2, 2, 24, 0) + bytes(range(12))
for name, data in [("bmp", bmp(5, 3)), ("bmp_top_down", bmp(5, 3, True)), ("bmp32", bmp(2, 2, bpp=32)), ("png", png(3, 2)),
                   ("gif", gif), ("pnm", pnm), ("tga", tga)]:
    put("image", name, b"\0" + data)
    put("image", name + "_cut", b"\1\x80\x00" + data)
