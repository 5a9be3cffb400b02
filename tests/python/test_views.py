"""Tests of tfx.head_view / tfx.model_view (issue 38): BertViz's views inline and offline.

The data inside each view is checked against the arrays it was made from (tfx results compared with
the CLI's JSON, numpy arrays given by hand), the scale it claims against the numbers it carries,
and, in headless Chromium (Debian chromium; skipped without it), that two views on one page each
draw their own lines: every view's page reports back what it drew. ctest entry python_views.
"""
import html
import json
import os
import re
import shutil
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
REPO = Path(__file__).resolve().parents[2]
BERT = str(REPO / "tests" / "data" / "hf_models" / "bert")


def cli_json(*args):
    proc = subprocess.run([TFX, *args, "--format", "json"], capture_output=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def page_data(view):
    """The data block of the view's page, as the page's script reads it."""
    m = re.search(r'<script type="application/json" id="tfx-data">(.*?)</script>', view.html, re.S)
    return json.loads(m.group(1))


def srcdoc(view):
    m = re.search(r'srcdoc="([^"]*)"', view._repr_html_())
    return html.unescape(m.group(1))


class Data(unittest.TestCase):
    def test_model_attention_all_layers_and_heads(self):
        a = tfx.model.attention(BERT, "the cat sat on the mat")
        want = cli_json("model", "attention", BERT, "the cat sat on the mat")
        w = np.asarray(want["data"], dtype=np.float64).reshape(want["summary"]["shape"])
        v = tfx.head_view(a)
        d = page_data(v)
        self.assertEqual(d["queries"], want["params"]["tokens"])
        self.assertEqual(d["keys"], want["params"]["tokens"])
        self.assertEqual((len(d["w"]), len(d["w"][0])), w.shape[:2])
        self.assertTrue(np.allclose(np.asarray(d["w"]).reshape(w.shape), w, atol=5e-5))
        self.assertIn("fixed 0 … 1", v.scale)
        self.assertIn("#modelview{display:none}", v.html)  # the head view alone
        self.assertNotIn("#modelview{display:none}", tfx.model_view(a).html)

    def test_numpy_array_with_tokens(self):
        w = np.array([[0.7, 0.3], [0.2, 0.8]])
        d = page_data(tfx.head_view(w, tokens=["a", "b"]))
        self.assertEqual(d["w"], [[[0.7, 0.3, 0.2, 0.8]]])
        self.assertEqual(d["queries"], ["a", "b"])
        d = page_data(tfx.head_view(np.stack([w, w[::-1]]), queries=["q1", "q2"], keys=["k1", "k2"]))
        self.assertEqual(len(d["heads"]), 2)
        self.assertEqual(d["keys"], ["k1", "k2"])
        with self.assertRaises(ValueError):
            tfx.head_view(w, tokens=["a", "b", "c"])
        with self.assertRaises(ValueError):
            tfx.head_view(np.ones(3))
        with self.assertRaises(ValueError):
            tfx.head_view(w * 3, tokens=["a", "b"])  # not weights: says so rather than drawing clipped lines

    def test_translator_encoder_decoder_cross(self):
        t = tfx.trace("나는 학생 이다")
        want = cli_json("trace", "나는 학생 이다")["matrices"]
        for part, name in (("encoder", "enc{}.self.weights"), ("decoder", "dec{}.self.weights"), ("cross", "dec{}.cross.weights")):
            d = page_data(tfx.head_view(t, part=part))
            self.assertEqual(len(d["w"]), 2, part)  # two layers
            for layer in (1, 2):
                m = want[name.format(layer)]
                ref = np.asarray(m["data"], dtype=np.float64).reshape(m["shape"])
                got = np.asarray(d["w"][layer - 1]).reshape(ref.shape)
                self.assertTrue(np.allclose(got, ref, atol=5e-5), part)
            self.assertEqual(d["queries"], want[name.format(1)]["rows"])
            self.assertEqual(d["keys"], want[name.format(1)]["columns"])
        self.assertEqual(page_data(tfx.head_view(t, part="cross"))["keys"], ["나는", "학생", "이다"])
        tr = tfx.translate("나는 학생 이다")
        d = page_data(tfx.head_view(tr))
        self.assertEqual(d["queries"], ["I", "am", "a", "student", "<eos>"])
        with self.assertRaises(ValueError):
            tfx.head_view(t, part="everything")

    def test_per_head_contrast_is_max_normalised_and_says_so(self):
        rng = np.random.default_rng(0)
        w = rng.random((2, 3, 5, 5)) + 5.0  # near-uniform heads
        w /= w.sum(-1, keepdims=True)
        v = tfx.model_view(w, tokens=list("abcde"), contrast="head")
        d = np.asarray(page_data(v)["w"]).reshape(w.shape)
        self.assertTrue(np.allclose(d.max(axis=(2, 3)), 1.0))
        self.assertTrue(np.allclose(d, w / w.max(axis=(2, 3), keepdims=True), atol=5e-5))
        self.assertIn("per-head contrast", v.scale)
        self.assertIn("per-head contrast", v.html)  # the page says it too
        self.assertIn("fixed 0 … 1", tfx.model_view(w, tokens=list("abcde")).html)
        with self.assertRaises(ValueError):
            tfx.model_view(w, tokens=list("abcde"), contrast="log")

    def test_inline_offline_unique(self):
        w = np.eye(3)
        a, b = tfx.head_view(w, tokens=list("xyz")), tfx.head_view(w, tokens=list("xyz"))
        self.assertNotEqual(a.id, b.id)
        self.assertIn(f'id="{a.id}"', a._repr_html_())
        self.assertIn("<iframe", a._repr_html_())
        self.assertEqual(srcdoc(a), a.html)
        page = a.html
        self.assertNotRegex(page, r'(src|href)\s*=\s*"(https?:)?//')  # nothing fetched
        self.assertIn("default-src 'none'", page)  # the page's own policy forbids fetching
        hostile = tfx.head_view(w, tokens=["</script><b>x", "&amp;", "'\""])
        self.assertNotIn("</script><b>x", hostile.html)
        self.assertEqual(page_data(hostile)["queries"], ["</script><b>x", "&amp;", "'\""])


def cli_page_data(*args):
    proc = subprocess.run([TFX, *args, "--html", "-"], capture_output=True)
    assert proc.returncode == 0, proc.stderr
    page = proc.stdout.decode()
    m = re.search(r'<script type="application/json" id="tfx-data">(.*?)</script>', page, re.S)
    return json.loads(m.group(1)), page


class CommandLinePages(unittest.TestCase):
    """tfx translate --html (cross, encoder, decoder attention) and tfx encoder --html: every layer
    and head, checked against the same weights from tfx trace / tfx encoder's JSON."""

    def test_translate_cross_attention_page(self):
        d, page = cli_page_data("translate", "나는 학생 이다")
        self.assertIn("cross-attention", page)
        w = np.asarray(d["w"])  # (layers, heads, T·S)
        self.assertEqual(w.shape[:2], (2, 4))
        self.assertEqual(d["queries"], ["I", "am", "a", "student", "<eos>"])
        self.assertEqual(d["keys"], ["나는", "학생", "이다"])
        # the table's cross-attention is the mean over the heads of the last layer
        table = np.asarray(cli_json("translate", "나는 학생 이다")["matrices"]["cross_attention"]["data"])
        self.assertTrue(np.allclose(w[-1].reshape(4, 5, 3).mean(axis=0), table, atol=1e-4))
        self.assertTrue(np.allclose(w.reshape(2, 4, 5, 3).sum(axis=-1), 1.0, atol=5e-4))  # softmax rows

    def test_translate_encoder_and_decoder_pages_match_the_trace(self):
        trace = cli_json("trace", "나는 학생 이다")["matrices"]
        enc, _ = cli_page_data("translate", "나는 학생 이다", "--html-attention", "encoder")
        dec, _ = cli_page_data("translate", "나는 학생 이다", "--html-attention", "decoder")
        self.assertEqual(enc["queries"], ["나는", "학생", "이다"])
        self.assertEqual(dec["queries"], ["<bos>", "I", "am", "a", "student"])
        for layer in (1, 2):
            ref = np.asarray(trace[f"enc{layer}.self.weights"]["data"])
            self.assertTrue(np.allclose(np.asarray(enc["w"][layer - 1]).reshape(ref.shape), ref, atol=5e-5))
            # the trace's decoder input is <bos> I am a: causal, so it is the first 4 × 4 of the page's
            ref = np.asarray(trace[f"dec{layer}.self.weights"]["data"])
            got = np.asarray(dec["w"][layer - 1]).reshape(4, 5, 5)[:, :4, :4]
            self.assertTrue(np.allclose(got, ref, atol=5e-5))
        bad = subprocess.run([TFX, "translate", "나는 학생 이다", "--html", "-", "--html-attention", "everything"], capture_output=True)
        self.assertEqual(bad.returncode, 2)
        self.assertTrue(bad.stderr.decode().startswith("tfx: error: --html-attention"))

    def test_encoder_page(self):
        d, page = cli_page_data("encoder", "--sentence", "I am a student", "--layers", "2")
        want = cli_json("encoder", "--sentence", "I am a student", "--layers", "2")["matrices"]
        self.assertIn("seeded", page)  # random weights say so
        self.assertEqual(d["queries"], ["I", "am", "a", "student"])
        for layer in (1, 2):
            ref = np.asarray(want[f"layer{layer}.weights"]["data"])
            self.assertTrue(np.allclose(np.asarray(d["w"][layer - 1]).reshape(ref.shape), ref, atol=5e-5))


CHROMIUM = next((c for c in (os.environ.get("TFX_CHROMIUM"), shutil.which("chromium"), shutil.which("chromium-browser")) if c), None)

REPORTER = ("<script>window.addEventListener('load', () => parent.postMessage({title: document.querySelector('h1').textContent, "
            "lines: document.querySelectorAll('#hv line').length, thumbs: document.querySelectorAll('canvas.thumb').length, "
            "errors: window.tfxErrors}, '*'));</script></body>")


@unittest.skipUnless(CHROMIUM, "no headless Chromium (Debian: chromium)")
class InChromium(unittest.TestCase):
    def test_two_views_in_one_page_each_draw_their_own(self):
        a = tfx.model.attention(BERT, "the cat sat on the mat")
        w = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
        views = [tfx.model_view(a), tfx.head_view(w, tokens=["x", "y", "z"], title="by hand")]
        cells = []
        for v in views:  # the notebook's HTML, each page told to report what it drew to the notebook page
            cells.append(v._repr_html_().replace(html.escape("</body>", quote=True), html.escape(REPORTER, quote=True)))
        doc = ("<!DOCTYPE html><html><body>" + "".join(cells) +
               "<script>window.addEventListener('message', e => { const p = document.createElement('pre'); "
               "p.className = 'report'; p.textContent = JSON.stringify(e.data); document.body.appendChild(p); });</script>"
               "</body></html>")
        with tempfile.TemporaryDirectory(prefix="tfx-views-") as tmp:
            path = Path(tmp) / "notebook.html"
            path.write_text(doc, encoding="utf-8")
            p = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                                f"--user-data-dir={tmp}/profile", "--virtual-time-budget=10000", "--dump-dom", path.as_uri()],
                               capture_output=True, text=True, timeout=120)
        reports = [json.loads(html.unescape(r)) for r in re.findall(r'<pre class="report">(.*?)</pre>', p.stdout, re.S)]
        self.assertEqual(len(reports), 2, p.stderr[-2000:])
        by_title = {r["title"]: r for r in reports}
        self.assertEqual(set(by_title), {views[0].title, "by hand"})
        # lines drawn at the start: every head of layer 0 (BERT) / the one head, weights ≥ 0.005
        bert = by_title[views[0].title]
        self.assertEqual(bert["lines"], int(np.sum(np.round(np.asarray(a)[0], 4) >= 0.005)))
        self.assertEqual(bert["thumbs"], 2 * 4)
        self.assertEqual(by_title["by hand"]["lines"], int(np.sum(w >= 0.005)))  # 6
        for r in reports:
            self.assertEqual(r["errors"], [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
