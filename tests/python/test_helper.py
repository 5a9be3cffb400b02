"""Tests of the Python helper python/tfx.py against the tfx binary it runs (ctest entry
python_helper, cmake/tests/python.cmake; run with /usr/bin/python3, Debian's numpy).

Each array the helper returns is compared with np.load of the CLI's own `--format npy` output
(run here directly with subprocess), labels, numbers, rankings and tables with the CLI's JSON,
errors with the CLI's stderr line, signatures and docstrings with each command's --help. TFX_BINARY names the binary under test; TFX_BUILD_DIR (optional) enables the install test.
"""
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

try:
    import numpy as np
except ImportError:
    print("TFX-SKIP: /usr/bin/python3 has no numpy (Debian: python3-numpy)")
    sys.exit(0)

import tfx

TFX = os.environ["TFX_BINARY"]
os.environ.pop("TFX_EMBEDDINGS", None)


def cli(*args, stdin=None):
    return subprocess.run([TFX, *args], input=stdin, capture_output=True)


def cli_npy(*args):
    proc = cli(*args, "--format", "npy")
    assert proc.returncode == 0, proc.stderr
    return np.load(io.BytesIO(proc.stdout), allow_pickle=False)


class Arrays(unittest.TestCase):
    """Arrays equal the CLI's npy output, bit for bit."""

    def check(self, got, *args):
        want = cli_npy(*args)
        self.assertIsInstance(got, np.ndarray)
        self.assertEqual(got.dtype, want.dtype)
        self.assertEqual(got.shape, want.shape)
        self.assertTrue(np.array_equal(got, want), f"{args}: arrays differ")

    def test_pe(self):
        self.check(tfx.pe(len=50, dim=128), "pe", "--len", "50", "--dim", "128")
        self.assertEqual(tfx.pe(len=50, dim=128).shape, (50, 128))

    def test_subcommands(self):
        self.check(tfx.pe.sim(len=20, dim=16), "pe", "sim", "--len", "20", "--dim", "16")
        self.check(tfx.npy("pe sim", len=20, dim=16), "pe", "sim", "--len", "20", "--dim", "16")
        self.check(tfx.rope.relative(dim=8, len=6), "rope", "relative", "--dim", "8", "--len", "6")
        self.check(tfx.rope(len=4, dim=8, what="theta"), "rope", "--len", "4", "--dim", "8", "--what", "theta")

    def test_attention_and_3d(self):
        s = "I love playing football"
        self.check(tfx.attention(sentence=s, causal=True), "attention", "--sentence", s, "--causal")
        self.check(tfx.attention(sentence=s, show="q"), "attention", "--sentence", s, "--show", "q")
        got = tfx.lookup(ids=[[0, 2, 5], [0, 99, 24]])  # a list of lists repeats the flag
        self.check(got, "lookup", "--ids", "0,2,5", "--ids", "0,99,24")
        self.assertEqual(got.shape, (2, 3, 64))

    def test_flag_spelling(self):
        # one letter: --k where the command has it (rope relative), -k where it has only -k (analogy)
        self.check(tfx.rope.relative(q="1,0,0.5,-1", k="0,1,1,0.25", len=4), "rope", "relative", "--q", "1,0,0.5,-1",
                   "--k", "0,1,1,0.25", "--len", "4")
        self.check(tfx.pe.shift(offset=-5, dim=8, rotation=True), "pe", "shift", "--offset", "-5", "--dim", "8", "--rotation")
        self.assertEqual(len(tfx.analogy("king", "man", "woman", k=2)), 2)
        # from_ -> --from, lists joined with commas, underscores -> dashes, floats exact
        got = tfx.json("direction", from_=["dog", "cat"], to="dogs,cats", words="dog,dogs")
        want = json.loads(cli("direction", "--from", "dog,cat", "--to", "dogs,cats", "--words", "dog,dogs",
                              "--format", "json").stdout)
        self.assertEqual(got, want)
        self.check(tfx.rope.freqs(dim=16, scaling="linear", factor=2.5, original_max_pos=64),
                   "rope", "freqs", "--dim", "16", "--scaling", "linear", "--factor", "2.5", "--original-max-pos", "64")
        self.check(tfx.lr(warmup=[4000, 8000], title=None), "lr", "--warmup", "4000,8000")


class MatrixInputs(unittest.TestCase):
    def test_2d_arrays_go_through_pipes_and_equal_the_cli_with_files(self):
        q = np.array([[1.0, 0.0], [0.5, -2.25]], dtype=np.float32)
        k = np.array([[0.0, 0.0], [np.log(4), 0.0], [0.1, 0.7]])
        v = np.arange(6, dtype=np.float64).reshape(3, 2) / 7
        with tempfile.TemporaryDirectory(prefix="tfx-helper-") as d:
            paths = []
            for name, m in (("q", q), ("k", k), ("v", v)):
                path = Path(d, name + ".csv")
                path.write_text("".join(",".join(repr(float(x)) for x in row) + "\n" for row in m))
                paths.append(str(path))
            want = cli_npy("attention", "--q", paths[0], "--k", paths[1], "--v", paths[2], "--no-scale")
        got = tfx.attention(q=q, k=k, v=v, no_scale=True)
        self.assertTrue(np.array_equal(got, want))
        self.assertTrue(np.allclose(got.sum(axis=1), 1, atol=1e-6))
        # a bad shape is tfx's own error; a pipe tfx never reads does not hang the helper
        with self.assertRaises(tfx.TfxError) as caught:
            tfx.attention(q=np.ones((2, 3)), k=k, v=v)
        self.assertIn("d_k", str(caught.exception))
        with self.assertRaises(tfx.TfxError):
            tfx.attention(q=np.ones((2000, 100)), k=k, v=v, seed="x")


def records(table):
    """A table result as a list of dicts, whether it came as a DataFrame or as records."""
    return table.to_dict("records") if hasattr(table, "to_dict") else table


class ReturnTypes(unittest.TestCase):
    """One documented return type per kind of result (docs/python.md)."""

    def test_one_number_is_a_float(self):
        want = json.loads(cli("pe", "--dim", "4", "--pos", "1", "--i", "2", "--format", "json").stdout)
        got = tfx.pe(dim=4, pos=1, i=2)
        self.assertIs(type(got), float)
        self.assertEqual(got, want["summary"]["value"])
        self.assertAlmostEqual(got, np.sin(0.01), places=12)  # the lecture's PE(1,2) = 0.00999983
        cos = tfx.similarity("king", "queen")  # like gensim's KeyedVectors.similarity
        self.assertIs(type(cos), float)
        want = json.loads(cli("similarity", "king", "queen", "--format", "json").stdout)
        self.assertEqual(cos, want["summary"]["cosine"])

    def test_rankings_are_word_score_tuples(self):
        want = json.loads(cli("analogy", "king", "man", "woman", "--format", "json").stdout)["data"]
        got = tfx.analogy("king", "man", "woman")
        self.assertEqual(got, [(r["word"], r["cosine"]) for r in want])
        self.assertEqual(got[0][0], "queen")
        want = json.loads(cli("similar", "king", "-k", "3", "--format", "json").stdout)["data"]
        self.assertEqual(tfx.similar("king", k=3), [(r["word"], r["cosine"]) for r in want])

    def test_matrices_keep_their_labels(self):
        m = tfx.lr(warmup=[4000, 8000])
        want = json.loads(cli("lr", "--warmup", "4000,8000", "--format", "json").stdout)
        self.assertIsInstance(m, tfx.Matrix)
        self.assertEqual(m.shape, (21, 2))
        self.assertEqual(m.rows, want["rows"])          # the steps
        self.assertEqual(m.cols, ["warmup=4000", "warmup=8000"])
        self.assertEqual(m.row_axis, "step")
        s = "I love playing football"
        a = tfx.attention(sentence=s, show="all")
        want = json.loads(cli("attention", "--sentence", s, "--show", "all", "--format", "json").stdout)
        self.assertEqual(a.rows, want["rows"] if "rows" in want else None)
        self.assertEqual(a.cols, want["columns"])
        self.assertTrue(set(want["matrices"]) <= set(a.matrices), a.matrices.keys())
        for name, sub in a.matrices.items():
            self.assertTrue(np.array_equal(sub, np.asarray(want["matrices"][name]["data"], dtype=np.float32)), name)
        # a slice keeps the labels of what it kept; arithmetic keeps them
        self.assertEqual(a[:2].rows, want["rows"][:2])
        self.assertEqual((a * 2).cols, a.cols)

    def test_to_pandas(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed (Debian: python3-pandas)")
        frame = tfx.lr(warmup=[4000]).to_pandas()
        self.assertEqual(list(frame.columns), ["warmup=4000"])
        self.assertEqual(frame.index[4], "4000")
        self.assertEqual(frame.index.name, "step")
        self.assertAlmostEqual(frame.loc["4000", "warmup=4000"], 512 ** -0.5 * 4000 ** -0.5, places=9)

    def test_tables(self):
        want = json.loads(cli("tokenize", "I love playing football", "--format", "json").stdout)["data"]
        got = tfx.tokenize("I love playing football")
        try:
            import pandas as pd
            self.assertIsInstance(got, pd.DataFrame)
            self.assertEqual(got.reset_index().to_dict("records"), want)
        except ImportError:
            self.assertEqual(got, want)

    def test_tables_without_pandas_are_lists_of_dicts(self):
        saved = sys.modules.get("pandas")
        sys.modules["pandas"] = None  # import pandas now raises ImportError
        try:
            got = tfx.tokenize("I love playing football")
            self.assertIsInstance(got, list)
            self.assertEqual(got[0]["token"], "I")
        finally:
            if saved is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved

    def test_json_table_run_stdin(self):
        want = json.loads(cli("layernorm", "--format", "json").stdout)
        self.assertEqual(tfx.json("layernorm"), want)
        self.assertEqual(tfx.table("layernorm"), cli("layernorm").stdout.decode())
        self.assertEqual(tfx.run("pe", "--len", "2", "--dim", "2"), cli("pe", "--len", "2", "--dim", "2").stdout)
        queries = "king man woman\nparis france germany\n"
        want = json.loads(cli("analogy", "--queries", "-", "--format", "json", stdin=queries.encode()).stdout)
        self.assertEqual(tfx.json("analogy", queries="-", stdin=queries), want)
        self.assertEqual(records(tfx.analogy(queries="-", stdin=queries)), want["data"])

    def test_words_that_look_like_flags_stay_words(self):
        """Positional words reach tfx after `--`: a word from a corpus that looks like a flag
        ("--output=victim.txt", "-o", "--help") is a word, never obeyed; no file is written."""
        with tempfile.TemporaryDirectory() as d:
            cwd = os.getcwd()
            os.chdir(d)
            try:
                victim = Path("victim.txt")
                victim.write_text("keep me\n")
                # two words where tokenize takes one TEXT: refused, nothing written
                with self.assertRaises(tfx.TfxError):
                    tfx.table("tokenize", ["hello", "--output=victim.txt"])
                self.assertEqual(victim.read_text(), "keep me\n")
                # one word that looks like a flag: tokenized as the word it is
                rows = tfx.json("tokenize", "--output=victim.txt")
                self.assertEqual([r["token"] for r in rows["data"]], ["--output=victim.txt"])
                rows = tfx.json("tokenize", "-o")
                self.assertEqual([r["token"] for r in rows["data"]], ["-o"])
                self.assertIn("--help", tfx.table("tokenize", "--help"))
                self.assertEqual(victim.read_text(), "keep me\n")
                self.assertEqual(sorted(os.listdir(d)), ["victim.txt"])
            finally:
                os.chdir(cwd)

    def test_output_flags_are_the_helpers(self):
        with self.assertRaises(TypeError):
            tfx.pe(len=3, format="csv")
        with self.assertRaises(TypeError) as caught:
            tfx.pe(lenn=3)
        self.assertIn("did you mean len=", str(caught.exception))


class HelpAndSignatures(unittest.TestCase):
    """help(tfx.X) and inspect.signature(tfx.X) come from the binary's own command table: every flag
    `tfx X --help` lists is there, with its default, and the examples too (fails when stale)."""

    def test_every_command_every_flag(self):
        import inspect
        import re
        table = json.loads(cli("--generate", "python").stdout)["commands"]
        self.assertGreater(len(table), 20)
        for spec in table:
            words = spec["command"].split()
            fn = tfx
            for w in words:
                fn = getattr(fn, w.replace("-", "_"))
            doc = fn.__doc__
            help_text = cli(*words, "--help").stdout.decode()
            flags = set(re.findall(r"(?m)^\s+(?:-\w,)?(--[a-z][a-z0-9-]*)", help_text))
            self.assertGreater(len(flags), 0, spec["command"])
            params = inspect.signature(fn).parameters
            for flag in flags - {"--help", "--format", "--output", "--png", "--svg", "--view"}:
                self.assertIn(flag, doc, f"help(tfx.{spec['command']}) lacks {flag}")
                name = flag[2:].replace("-", "_")
                short = re.search(r"(?m)^\s+-(\w)," + re.escape(flag) + r"\b", help_text)  # -k,--top: k=
                self.assertTrue(name in params or name + "_" in params or (short and short.group(1) in params),
                                f"{spec['command']}: no keyword {name}")
            if "Example" in help_text:
                first = help_text.split("Example", 1)[1].splitlines()[1].strip()
                self.assertIn(first, doc)

    def test_defaults_and_types(self):
        import inspect
        p = inspect.signature(tfx.pe).parameters
        self.assertEqual(p["len"].default, 50)
        self.assertEqual(p["dim"].default, 128)
        self.assertEqual(p["base"].default, 10000.0)
        self.assertIs(inspect.signature(tfx.attention).parameters["causal"].default, False)
        self.assertIn("--causal", tfx.attention.__doc__)
        self.assertIn("tfx attention --sentence", tfx.attention.__doc__)  # an example
        self.assertTrue(callable(tfx.pe.sim) and "sim" in dir(tfx.pe))


class Figures(unittest.TestCase):
    def test_png_is_the_clis(self):
        fig = tfx.show("pe sim", len=20, dim=16, fmt="png")
        self.assertEqual(fig.format, "png")
        self.assertEqual(fig.data, cli("pe", "sim", "--len", "20", "--dim", "16", "--png", "-").stdout)
        self.assertTrue(fig.data.startswith(b"\x89PNG\r\n\x1a\n"))
        self.assertEqual(fig._repr_png_(), fig.data)
        self.assertIsNone(fig._repr_svg_())

    def test_png_is_the_default(self):
        fig = tfx.show("pe", len=10, dim=8)
        self.assertEqual(fig.format, "png")
        self.assertEqual(fig.data, cli("pe", "--len", "10", "--dim", "8", "--png", "-").stdout)

    def test_auto_picks_svg_when_tfx_has_it(self):
        fig = tfx.show(tfx.pe, len=10, dim=8, fmt="auto")
        has_svg = "--svg" in cli("pe", "--help").stdout.decode()
        self.assertEqual(fig.format, "svg" if has_svg else "png")
        if has_svg:
            self.assertIn("<svg", fig._repr_svg_())


class Errors(unittest.TestCase):
    def check(self, call, args, code):
        proc = cli(*args)
        self.assertEqual(proc.returncode, code)
        line = proc.stderr.decode().strip()
        self.assertTrue(line.startswith("tfx: error: "), line)
        with self.assertRaises(tfx.TfxError) as caught:
            call()
        self.assertEqual(str(caught.exception), line[len("tfx: error: "):])
        self.assertEqual(caught.exception.exit_code, code)
        # one clean error: no chained "During handling of the above exception…" traceback
        self.assertIsNone(caught.exception.__cause__)
        self.assertIsNone(caught.exception.__context__)

    def test_usage_error(self):
        self.check(lambda: tfx.pe(len=0, dim=4), ["pe", "--len", "0", "--dim", "4"], 2)

    def test_data_error(self):
        self.check(lambda: tfx.analogy("king", "man", "wmoan"), ["analogy", "king", "man", "wmoan"], 1)
        self.check(lambda: tfx.analogy("king", "man", "woman", embeddings="/nonexistent/vectors.txt"),
                   ["analogy", "king", "man", "woman", "--embeddings", "/nonexistent/vectors.txt"], 1)

    def test_missing_binary(self):
        old_binary = tfx.BINARY
        try:
            tfx.BINARY = "/nonexistent/tfx"  # wins over $TFX_BINARY
            self.assertEqual(tfx.binary(), "/nonexistent/tfx")
            with self.assertRaises(tfx.TfxError) as caught:
                tfx.pe(len=2, dim=2)
            self.assertIn("cannot run /nonexistent/tfx", str(caught.exception))
        finally:
            tfx.BINARY = old_binary
        self.assertEqual(tfx.binary(), TFX)


REPO = Path(__file__).resolve().parents[2]
BERT = str(REPO / "tests" / "data" / "hf_models" / "bert")
SENTENCE = "I love playing football"


def cli_json(*args):
    proc = cli(*args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


try:
    import pandas  # noqa: F401
    HAVE_PANDAS = True
except ImportError:
    HAVE_PANDAS = False


def need_pandas(case):
    try:
        import pandas  # noqa: F401
    except ImportError:
        case.skipTest("pandas is not installed (Debian: python3-pandas)")


class LabelsNeverLie(unittest.TestCase):
    """Issue 38: a result's shape is the CLI's, and its labels follow the numbers through indexing,
    transposes, sorting and numpy functions (or are dropped), checked against the CLI's own rows."""

    def setUp(self):
        self.w = tfx.attention(sentence=SENTENCE, causal=True)
        self.want = cli_json("attention", "--sentence", SENTENCE, "--causal")
        self.by_token = {t: np.asarray(row, dtype=np.float32) for t, row in zip(self.want["rows"], self.want["data"])}

    def check_rows(self, m):
        """every labelled row of m is the CLI's row of that token"""
        self.assertIsNotNone(m.rows)
        for label, row in zip(m.rows, np.asarray(m)):
            self.assertTrue(np.array_equal(row, self.by_token[label]), f"row {label!r} holds another token's weights")

    def test_model_attention_has_the_clis_4d_shape_and_axis_names(self):
        for sentence in ("the cat sat", "the cat sat on the mat the cat"):
            a = tfx.model.attention(BERT, sentence)
            npy = cli_npy("model", "attention", BERT, sentence)
            self.assertEqual(npy.ndim, 4)
            self.assertEqual(a.shape, npy.shape)  # (layers, heads, T, T)
            self.assertTrue(np.array_equal(a, npy))
            self.assertEqual(a.axes, ("layer", "head", "query", "key"))
            tokens = cli_json("model", "attention", BERT, sentence)["params"]["tokens"]
            self.assertEqual(a.labels, (None, None, tokens, tokens))
            self.assertEqual(a[1, 2].rows, tokens)
            self.assertEqual(a[1, 2].axes, ("query", "key"))
            one = cli_npy("model", "attention", BERT, sentence, "--layer", "1", "--head", "2")
            self.assertTrue(np.array_equal(a[1, 2], one))
        self.assertEqual(tfx.model.attention(BERT, "the cat sat", layer=0).axes, ("head", "query", "key"))

    def test_reversed_and_fancy_indexing_move_the_labels(self):
        for m in (self.w[::-1], self.w[[3, 2, 1, 0]], self.w[[0, 2]], self.w[1:], self.w[np.array([False, True, True, False])],
                  np.flip(self.w, 0), self.w.take([2, 0], axis=0)):
            self.check_rows(m)
        self.assertEqual(self.w[::-1].rows, ["football", "playing", "love", "I"])
        self.assertEqual(self.w[:, ::-1].cols, ["football", "playing", "love", "I"])
        self.assertEqual(self.w[:, [1, 0]].cols, ["love", "I"])
        need = cli_json("attention", "--sentence", SENTENCE, "--causal")
        frame = self.w[::-1].to_pandas() if hasattr(self.w, "to_pandas") else None
        try:
            import pandas  # noqa: F401
            self.assertAlmostEqual(float(frame.loc["I", "I"]), need["data"][0][0])  # row I: 1, 0, 0, 0
            self.assertEqual(float(frame.loc["I", "love"]), 0.0)
        except ImportError:
            pass
        row = self.w[1]  # an integer index drops its axis; the key labels stay
        self.assertEqual(row.axes, ("key",))
        self.assertEqual(row.rows, need["columns"])

    def test_transposes_swap_labels_and_axis_names(self):
        for t in (self.w.T, np.transpose(self.w), self.w.swapaxes(0, 1), np.moveaxis(self.w, 0, 1), self.w.transpose(1, 0)):
            self.assertEqual(t.row_axis, "key")
            self.assertEqual(t.col_axis, "query")
            self.assertEqual(t.rows, self.want["columns"])
            for label, col in zip(t.cols, np.asarray(t).T):
                self.assertTrue(np.array_equal(col, self.by_token[label]))
        a = tfx.model.attention(BERT, "the cat sat")
        self.assertEqual(np.moveaxis(a, 1, 0).axes, ("head", "layer", "query", "key"))

    def test_sorting_and_reordering_functions_drop_the_labels(self):
        s = np.sort(self.w, 1)
        self.assertIsNone(s.cols)  # each row sorted on its own: no column is a key any more
        self.assertEqual(s.rows, self.want["rows"])  # rows still are the queries
        self.assertIsNone(np.sort(self.w, 0).rows)
        c = self.w.copy()
        c.sort(axis=0)
        self.assertIsNone(c.rows)
        for plain in (np.roll(self.w, 1, axis=0), np.random.default_rng(0).permutation(np.asarray(self.w)),
                      np.concatenate([self.w, self.w])):
            self.assertIsNone(getattr(plain, "rows", None))
        self.assertNotIsInstance(self.w.argsort(1), tfx.Matrix)
        self.assertIsNone((self.w + self.w[::-1]).rows)  # operands whose labels differ: no labels
        self.assertEqual(np.exp(self.w).rows, self.want["rows"])
        self.assertEqual(self.w.sum(axis=1).rows, self.want["rows"])  # reduced over keys: per query
        self.assertEqual(self.w.max(axis=0).axes, ("key",))
        self.assertTrue(np.allclose(self.w.sum(axis=1), 1.0))

    def test_printing_shows_the_labels(self):
        text = repr(self.w)
        self.assertIn("football", text)
        self.assertIn("query", text)
        self.assertIn("(4, 4)", text)
        first = [ln for ln in text.splitlines() if ln.startswith("love")][0].split()
        self.assertAlmostEqual(float(first[1]), self.want["data"][1][0], places=3)
        html = self.w._repr_html_()
        self.assertIn("<table", html)
        self.assertEqual(html.count("<th"), 1 + 4 + 4)  # corner, 4 keys, 4 queries
        self.assertIn("background:rgba(8,48,107,1.000)", html)  # row I attends only to I: full colour
        pe = tfx.pe(len=3, dim=4)
        self.assertNotIn("background", pe._repr_html_())  # not weights: no heat colour
        a = tfx.model.attention(BERT, "the cat sat")
        self.assertTrue("layer 1, head 3" in a._repr_html_())
        hostile = tfx.Matrix(np.eye(2), rows=["<b>x</b>", "&"], cols=["a", "b"])
        self.assertNotIn("<b>x</b>", hostile._repr_html_())

    def test_tables_in_the_clis_column_order_with_an_index(self):
        need_pandas(self)
        t = tfx.tokenize(SENTENCE)
        header = cli("tokenize", SENTENCE, "--format", "csv").stdout.decode().splitlines()[0].split(",")
        self.assertEqual([t.index.name] + list(t.columns), header)  # position, token, id
        self.assertEqual(t.index.name, "position")
        steps = tfx.translate("나는 학생 이다").steps
        header = cli("translate", "나는 학생 이다", "--format", "csv").stdout.decode().splitlines()[0].split(",")
        self.assertEqual([steps.index.name] + list(steps.columns), header)
        self.assertEqual(list(steps["token"]), ["I", "am", "a", "student", "<eos>"])


def unit(v):
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v)


class GensimHabits(unittest.TestCase):
    """Issue 38: gensim's spellings (positive/negative/topn, vector, doesnt_match, word lists) and
    signatures that bind as gensim's calls do."""

    def test_similar_with_positive_negative_topn(self):
        got = tfx.similar(positive=["king", "woman"], negative=["man"], topn=5)
        want = cli_json("similar", "king", "woman", "--negative", "man", "-k", "5")["data"]
        self.assertEqual(got, [(r["word"], r["cosine"]) for r in want])
        self.assertEqual(len(got), 5)
        # gensim's most_similar: cosine of the word with the normalised mean of the (signed) unit vectors
        v = cli_npy("lookup", "--words", "king,woman,man," + got[0][0], "--table", "named-dims").astype(np.float64)
        mean = unit(np.mean([unit(v[0]), unit(v[1]), -unit(v[2])], axis=0))
        self.assertAlmostEqual(got[0][1], float(unit(v[3]) @ mean), places=5)
        self.assertEqual(tfx.similar(["king", "woman"], k=3), tfx.similar("king", "woman", k=3))  # a list = several words
        self.assertEqual([w for w, _ in tfx.similar(["king", "woman"], k=3)],
                         [r["word"] for r in cli_json("similar", "king", "woman", "-k", "3")["data"]])

    def test_analogy_takes_a_list_and_gensims_keywords(self):
        want = [(r["word"], r["cosine"]) for r in cli_json("analogy", "king", "man", "woman", "-k", "3")["data"]]
        self.assertEqual(tfx.analogy(["king", "man", "woman"], k=3), want)
        self.assertEqual(tfx.analogy(positive=["king", "woman"], negative=["man"], topn=3), want)
        self.assertEqual(want[0][0], "queen")
        with self.assertRaises(TypeError):
            tfx.analogy(positive=["king"], negative=["man"])

    def test_vector_and_doesnt_match(self):
        v = tfx.vector("king")
        dims = cli_json("embeddings", "info")
        row = cli_npy("lookup", "--words", "king", "--table", "named-dims")
        self.assertEqual(v.shape, (row.shape[-1],))
        self.assertEqual(v.ndim, 1)
        self.assertTrue(np.array_equal(v, row.reshape(-1)))
        self.assertIn("64", json.dumps(dims))
        words = ["king", "queen", "prince", "banana"]
        self.assertEqual(tfx.doesnt_match(words), "banana")
        m = cli_npy("lookup", "--words", ",".join(words), "--table", "named-dims").astype(np.float64)
        u = np.array([unit(r) for r in m])
        self.assertEqual(tfx.doesnt_match(words), words[int(np.argmin(u @ unit(u.mean(0))))])
        with self.assertRaises(tfx.TfxError):
            tfx.vector("notaword_xyz")

    def test_signatures_bind_like_gensim(self):
        import inspect
        inspect.signature(tfx.analogy).bind("king", "man", "woman")
        inspect.signature(tfx.similarity).bind("king", "queen")
        inspect.signature(tfx.similar).bind("king", "woman", negative=["man"], topn=5)
        p = inspect.signature(tfx.similar).parameters
        self.assertIn("k", p)
        self.assertIn("topn", p)
        self.assertEqual(inspect.signature(tfx.analogy).parameters["k"].default, 5)
        self.assertEqual(inspect.signature(tfx.lr).parameters["warmup"].default, [4000])  # a list, not '[4000]'
        for spec in json.loads(cli("--generate", "python").stdout)["commands"]:
            fn = tfx
            for w in spec["command"].split():
                fn = getattr(fn, w.replace("-", "_"))
            for name, param in inspect.signature(fn).parameters.items():
                self.assertFalse(isinstance(param.default, str) and param.default.startswith("["),
                                 f"{spec['command']} {name}={param.default!r}")


class ResultObjects(unittest.TestCase):
    def test_translate(self):
        t = tfx.translate("나는 학생 이다")
        want = cli_json("translate", "나는 학생 이다")
        self.assertEqual(t.translation, "I am a student")
        self.assertEqual(t.translation, want["summary"]["translation"])
        self.assertEqual(t.source, ["나는", "학생", "이다"])
        ca = t.cross_attention
        self.assertIsInstance(ca, tfx.Matrix)
        self.assertEqual(ca.axes, ("generated", "source"))
        self.assertEqual(ca.rows, ["I", "am", "a", "student", "<eos>"])
        self.assertEqual(ca.cols, ["나는", "학생", "이다"])
        self.assertTrue(np.allclose(ca.sum(axis=1), 1.0, atol=1e-5))  # each row a softmax (mean over heads)
        self.assertTrue(np.array_equal(ca, np.asarray(want["matrices"]["cross_attention"]["data"], dtype=np.float32)))
        self.assertEqual(int(np.argmax(ca.to_pandas().loc["student"])), 1) if HAVE_PANDAS else None
        self.assertIn("I am a student", t._repr_html_())

    def test_trace_steps_with_their_matrices(self):
        tr = tfx.trace("나는 학생 이다")
        want = cli_json("trace", "나는 학생 이다")
        self.assertEqual(len(tr), want["summary"]["steps"])
        self.assertEqual(tr.next_token, "student")
        w = tr["enc1.self.weights"]
        self.assertEqual(w.axes, ("head", "query", "key"))
        self.assertEqual(w.shape, (4, 3, 3))
        self.assertTrue(np.allclose(w.sum(axis=-1), 1.0, atol=1e-5))
        steps = list(tr)
        named = [s for s in steps if s.name == "enc1.self.weights"]
        self.assertEqual(len(named), 1)
        self.assertIs(named[0].matrix, w)
        self.assertEqual(named[0].shape, str(list(w.shape)).replace(" ", " "))

    def test_show_says_the_command_draws_no_figure(self):
        with self.assertRaises(tfx.TfxError) as caught:
            tfx.show("similarity", "king", "queen")
        self.assertIn("tfx similarity draws no figure", str(caught.exception))
        self.assertNotIn("--lang", str(caught.exception))
        self.assertEqual(caught.exception.exit_code, 2)

    def test_error_traceback_is_the_users_line(self):
        import traceback
        try:
            tfx.analogy("king", "man", "wmoan")  # THE USER'S LINE
        except tfx.TfxError as e:
            frames = traceback.extract_tb(e.__traceback__)
            text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        self.assertIn('tfx.analogy("king", "man", "wmoan")', frames[0].line)
        self.assertEqual(frames[0].filename, __file__)
        inside = [f for f in frames if f.filename.endswith("tfx.py")]
        self.assertLessEqual(len(inside), 1, text)  # one frame: the re-raise (IPython hides it: __tracebackhide__)
        self.assertIn("'wmoan'", text.splitlines()[-1])
        for call in (lambda: tfx.npy("pe", len=0), lambda: tfx.show("pe", len=0), lambda: tfx.vector("notaword_xyz")):
            try:
                call()
            except tfx.TfxError as e:
                self.assertLessEqual(len([f for f in traceback.extract_tb(e.__traceback__) if f.filename.endswith("tfx.py")]), 1)


@unittest.skipUnless(os.environ.get("TFX_BUILD_DIR"), "TFX_BUILD_DIR not set")
class Train(unittest.TestCase):
    """tfx.train (issue 50): writes a model only when asked, shows progress lines while it trains,
    and its curve is the CLI's."""

    def test_nothing_written_unless_asked_and_progress_lines(self):
        with tempfile.TemporaryDirectory() as d:
            here = os.getcwd()
            os.chdir(d)
            err = io.StringIO()
            old, sys.stderr = sys.stderr, err
            try:
                curve, path = tfx.train(steps=20, batch=8, every=10, threads=1, d_model=16, heads=2, ffn=32, layers=1)
            finally:
                sys.stderr = old
                os.chdir(here)
            self.assertIsNone(path)
            self.assertEqual(os.listdir(d), [])  # no tfx_train.safetensors, nothing
            rows = curve.reset_index().to_dict("records") if hasattr(curve, "reset_index") else curve
            self.assertEqual([r["step"] for r in rows], [10, 20])
            lines = [ln for ln in err.getvalue().splitlines() if ln.startswith("step ")]
            self.assertEqual([ln.split(":")[0] for ln in lines], ["step 10/20", "step 20/20"])
            want = cli_json("train", "--steps", "20", "--batch", "8", "--every", "10", "--threads", "1", "--d-model", "16",
                            "--heads", "2", "--ffn", "32", "--layers", "1", "--no-progress")
            self.assertEqual([r["loss"] for r in rows], [r["loss"] for r in want["data"]])

    def test_model_written_when_asked(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.safetensors")
            _, got = tfx.train(model=path, steps=5, batch=4, every=5, threads=1, d_model=16, heads=2, ffn=32, layers=1,
                               no_progress=True)
            self.assertEqual(got, path)
            self.assertEqual(sorted(os.listdir(d)), ["m.safetensors", "m.vocab.txt"])


class Microscope(unittest.TestCase):
    """Issue 48: tfx.model.lens(...) is the (L + 1, T, V) probabilities with token labels, the CLI's
    npy; tfx.model.patch(...) the (L, T) patching matrix."""

    GPT2 = str(REPO / "tests" / "data" / "hf_models" / "gpt2")

    def test_lens_is_the_clis_npy_with_token_labels(self):
        p = tfx.model.lens(self.GPT2, "the cat sat")
        npy = cli_npy("model", "lens", self.GPT2, "the cat sat")
        tokens = cli_json("model", "next", self.GPT2, "the cat sat")["params"]["tokens"]
        self.assertEqual(p.shape, (3, len(tokens), 272))  # 2 layers + the embeddings, T, vocabulary
        self.assertTrue(np.array_equal(p, npy))
        self.assertEqual(p.axes, ("layer", "position", "vocabulary id"))
        self.assertEqual(p.labels[1], tokens)
        self.assertTrue(np.allclose(p.sum(-1), 1, atol=1e-5))

    def test_patch_is_layers_by_positions(self):
        m = tfx.model.patch(self.GPT2, clean="the cat sat", corrupt="the dog sat")
        npy = cli_npy("model", "patch", self.GPT2, "--clean", "the cat sat", "--corrupt", "the dog sat")
        self.assertEqual(m.shape, npy.shape)
        self.assertEqual(m.shape[0], 2)
        self.assertTrue(np.array_equal(m, npy))
        self.assertEqual(m.axes, ("block", "position"))
        self.assertIn("␣cat/␣dog", m.cols)


class Install(unittest.TestCase):
    def test_cmake_install_puts_an_importable_helper_that_finds_its_tfx(self):
        with tempfile.TemporaryDirectory(prefix="tfx-install-") as prefix:
            proc = subprocess.run(["cmake", "--install", os.environ["TFX_BUILD_DIR"], "--prefix", prefix],
                                  capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            installed = list(Path(prefix).rglob("tfx.py"))
            self.assertEqual(len(installed), 1, proc.stdout)
            env = {k: v for k, v in os.environ.items() if k not in ("TFX_BINARY", "PYTHONPATH")}
            env["PYTHONPATH"] = str(installed[0].parent)
            env["PATH"] = "/usr/bin:/bin"
            out = subprocess.run([sys.executable, "-c", "import tfx; print(tfx.binary()); print(tfx.pe(len=3, dim=4).shape)"],
                                 env=env, cwd=prefix, capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(out.stdout.split("\n")[:2], [str(Path(prefix) / "bin" / "tfx"), "(3, 4)"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
