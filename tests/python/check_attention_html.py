#!/usr/bin/env python3
"""The --html attention page in headless Chromium (Debian `chromium`).

For each page: tfx writes it (and the same weights as npy, through the ordinary output path),
Chromium opens it with "#selftest", whose script hovers a query token, hovers a key token, picks
the last layer, double-clicks the last head chip and clicks the first model-view thumbnail, and
writes what the page drew into <pre id="selftest">. Checked here against the npy weights:
  - the page loads with no script error (window errors and Chromium's console log);
  - the lines drawn at the start are every (head, query, key) with weight >= 0.005 of the first
    layer, each with its weight as opacity; hovering the last query leaves only that query's
    lines; hovering key 0 only the lines into key 0; leaving restores them all; picking the last
    layer draws that layer's lines; a double-clicked head chip leaves that head alone;
  - a decoder's page draws no line from a query to a later key;
  - the model view has layers x heads thumbnails, and the brightest pixel of each row of the
    first one is that row's largest weight;
  - the tokens shown are the tokens, also hostile ones ("</script>", "<img onerror>"), which
    never appear unescaped in the file; the file asks for nothing over the network.
Skipped (TFX-SKIP) without chromium or numpy.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODELS = os.path.join(ROOT, "tests", "data", "hf_models")
TFX = os.environ.get("TFX_BINARY", os.path.join(ROOT, "build", "tfx"))
MIN_SHOWN = 0.005

try:
    import numpy as np
except ImportError:
    print("TFX-SKIP: numpy is not installed (Debian: python3-numpy)")
    sys.exit(0)

CHROMIUM = next((c for c in (os.environ.get("TFX_CHROMIUM"), shutil.which("chromium"), shutil.which("chromium-browser"),
                             shutil.which("google-chrome")) if c), None)
if not CHROMIUM:
    print("TFX-SKIP: no headless Chromium (Debian: chromium); the --html page was not opened")
    sys.exit(0)

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)
    return ok


def tfx(args, cwd, expect=0):
    p = subprocess.run([TFX] + args, cwd=cwd, capture_output=True, text=True, timeout=300)
    if p.returncode != expect:
        raise SystemExit(f"tfx {' '.join(args)} exited {p.returncode} (expected {expect}): {p.stderr.strip()}")
    return p


def open_page(path):
    """The selftest JSON and Chromium's console lines."""
    with tempfile.TemporaryDirectory() as profile:
        p = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", f"--user-data-dir={profile}",
                            "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000", "--dump-dom",
                            "file://" + os.path.abspath(path) + "#selftest"],
                           capture_output=True, text=True, timeout=180)
    m = re.search(r'<pre id="selftest">(.*?)</pre>', p.stdout, re.S)
    if not m:
        raise SystemExit(f"{path}: the self-test wrote nothing (the page's script did not run); chromium said:\n{p.stderr[-2000:]}")
    text = m.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&#39;", "'").replace("&amp;", "&")
    console = [line for line in p.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    return json.loads(text), console


def expected_lines(w, layer, heads, q=None, k=None):
    out = []
    for h in heads:
        for i in range(w.shape[2]):
            if q is not None and i != q:
                continue
            for j in range(w.shape[3]):
                if k is not None and j != k:
                    continue
                if w[layer, h, i, j] >= MIN_SHOWN:
                    out.append((h, i, j, float(w[layer, h, i, j])))
    return out


def same_lines(drawn, expected, what):
    # a weight within 5e-4 of the threshold may fall either side once written with 4 decimals
    drawn_keys = {(a, b, c) for a, b, c, _ in drawn}
    exp_keys = {(a, b, c) for a, b, c, v in expected if v >= MIN_SHOWN + 5e-4}
    borderline = {(a, b, c) for a, b, c, v in expected if v < MIN_SHOWN + 5e-4}
    ok = check(exp_keys <= drawn_keys and drawn_keys <= exp_keys | borderline,
               f"{what}: lines drawn {len(drawn_keys)}, expected {len(exp_keys)} (+{len(borderline)} at the threshold)")
    value = {(a, b, c): v for a, b, c, v in expected}
    worst = max((abs(op - value[(a, b, c)]) for a, b, c, op in drawn if (a, b, c) in value), default=0.0)
    check(worst <= 6e-5, f"{what}: line opacity differs from the weight by {worst}")
    return ok


def check_page(name, html, w, tokens_q, tokens_k, causal=False):
    """w: (L, H, T, S) float32 from the npy output."""
    raw = open(html, encoding="utf-8").read()
    result, console = open_page(html)
    L, H, T, S = w.shape
    check(result.get("errors") == [], f"{name}: script errors {result.get('errors')}")
    check(not console, f"{name}: console messages {console[:3]}")
    check((result["layers"], result["heads"], result["queries"], result["keys"]) == (L, H, T, S),
          f"{name}: page holds {result['layers']}x{result['heads']}x{result['queries']}x{result['keys']}, npy {w.shape}")
    check(result["token_text"]["q"] == tokens_q, f"{name}: query tokens shown {result['token_text']['q']} != {tokens_q}")
    check(result["token_text"]["k"] == tokens_k, f"{name}: key tokens shown {result['token_text']['k']} != {tokens_k}")
    start = result["start"]
    same_lines(start["lines"], expected_lines(w, start["layer"], start["heads"]), f"{name} start")
    hq = result["hover_query"]
    check(hq["highlighted"], f"{name}: the hovered token is not highlighted")
    same_lines(hq["lines"], expected_lines(w, start["layer"], start["heads"], q=T - 1), f"{name} hover query {T - 1}")
    check(len(hq["lines"]) < len(start["lines"]) or T == 1, f"{name}: hovering changed nothing")
    check(hq["info"].strip() != "" and "attends most to" in hq["info"], f"{name}: no readout on hover: {hq['info']!r}")
    same_lines(result["hover_key"]["lines"], expected_lines(w, start["layer"], start["heads"], k=0), f"{name} hover key 0")
    check(result["after_leave"] == len(start["lines"]), f"{name}: leaving the token left {result['after_leave']} lines")
    pl = result["pick_layer"]
    check(pl["layer"] == L - 1, f"{name}: picking the last layer gave layer {pl['layer']}")
    same_lines(pl["lines"], expected_lines(w, L - 1, start["heads"]), f"{name} layer {L - 1}")
    ph = result["pick_head"]
    check(ph["heads"] == [H - 1], f"{name}: double-clicking head {H - 1} left heads {ph['heads']}")
    same_lines(ph["lines"], expected_lines(w, L - 1, [H - 1]), f"{name} layer {L - 1} head {H - 1}")
    check(result["thumbnails"] == L * H, f"{name}: {result['thumbnails']} thumbnails, expected {L * H}")
    for i, j in enumerate(result["thumb_argmax"]):
        row = np.sort(w[0, 0, i])[::-1]
        if len(row) > 1 and row[0] - row[1] < 0.03:
            continue  # too close to tell apart in 8-bit colors
        check(j == int(np.argmax(w[0, 0, i])), f"{name}: thumbnail row {i} brightest at key {j}, largest weight at {int(np.argmax(w[0, 0, i]))}")
    ct = result["click_thumb"]
    check(ct["layer"] == 0 and ct["heads"] == [0] and ct["selected"], f"{name}: clicking the first thumbnail gave {ct}")
    if causal:
        later = [l for l in start["lines"] + pl["lines"] if l[2] > l[1]]
        check(not later, f"{name}: a decoder's page draws lines to later keys: {later[:3]}")
    # offline: nothing fetched, nothing linked
    check("<link" not in raw and not re.search(r"\bsrc\s*=", raw.split('id="tfx-data"')[0]),
          f"{name}: the page links an outside file")
    check(not re.search(r"https?://(?!www\.w3\.org/2000/svg)", raw), f"{name}: the page names a web address")
    check("default-src 'none'" in raw, f"{name}: no Content-Security-Policy")
    return raw


def main():
    if not os.path.isdir(MODELS):
        print(f"TFX-SKIP: {MODELS} is missing")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        # 1. an encoder (BERT) and 2. a decoder (GPT-2), every layer and head
        for model, text, causal in (("bert", "the cat sat on the mat", False), ("gpt2", "The cat sat on the mat", True)):
            d = os.path.join(MODELS, model)
            tfx(["model", "attention", d, text, "--html", f"{model}.html"], tmp)
            tfx(["model", "attention", d, text, "-o", f"{model}.npy"], tmp)
            toks = json.loads(tfx(["model", "tokenize", d, text, "--format", "json"], tmp).stdout)
            readable = toks["summary"]["readable"]
            w = np.load(os.path.join(tmp, f"{model}.npy"))
            check_page(model, os.path.join(tmp, f"{model}.html"), w, readable, readable, causal)
            # --layer/--head choose where the page opens; the page still holds every layer and head
            tfx(["model", "attention", d, text, "--layer", "1", "--head", "2", "--html", f"{model}_l1h2.html"], tmp)
            r, _ = open_page(os.path.join(tmp, f"{model}_l1h2.html"))
            check(r["start"]["layer"] == 1 and r["start"]["heads"] == [2] and r["thumbnails"] == w.shape[0] * w.shape[1],
                  f"{model} --layer 1 --head 2: the page opens on layer {r['start']['layer']} heads {r['start']['heads']}")

        # 3. the teaching translator's trained attention over the lecture's sentence (Korean tokens)
        tfx(["attention", "--sentence", "나는 학생 이다", "--html", "ko.html"], tmp)
        tfx(["attention", "--sentence", "나는 학생 이다", "-o", "ko.npy"], tmp)
        w = np.load(os.path.join(tmp, "ko.npy"))
        w = w.reshape((1, -1) + w.shape[-2:])
        check_page("translator", os.path.join(tmp, "ko.html"), w, ["나는", "학생", "이다"], ["나는", "학생", "이다"])

        # 4. hostile token labels from a CSV: shown as text, never run
        hostile = ["</script><script>alert(1)</script>", "<img src=x onerror=alert(1)>", "&amp; &lt;", "\"q'", "plain"]
        with open(os.path.join(tmp, "x.csv"), "w", encoding="utf-8") as f:
            f.write(",a,b,c,d\n")
            for k, label in enumerate(hostile):
                cell = '"' + label.replace('"', '""') + '"'
                f.write(cell + "," + ",".join(str(((k + 1) * (c + 2)) % 7 / 3.0) for c in range(4)) + "\n")
        tfx(["attention", "--x", "x.csv", "--heads", "2", "--html", "hostile.html"], tmp)
        tfx(["attention", "--x", "x.csv", "--heads", "2", "-o", "hostile.npy"], tmp)
        w = np.load(os.path.join(tmp, "hostile.npy"))
        w = w.reshape((1, -1) + w.shape[-2:])
        raw = check_page("hostile", os.path.join(tmp, "hostile.html"), w, hostile, hostile)
        for label in hostile[:2]:
            check(label not in raw, f"hostile: {label!r} reached the file unescaped")
        check(raw.count("<script") == 3, f"hostile: the file has {raw.count('<script')} <script> tags, expected 3")

        # 5. bad --html targets: one line, exit 2, nothing written
        for args, needle in ((["--html", "page.txt"], ".html"), (["--html", "same.html", "--format", "csv", "-o", "same.html"], "does not match --format csv"),
                             (["--html", "-", "--format", "csv"], "stdout")):
            p = tfx(["model", "attention", os.path.join(MODELS, "bert"), "the cat"] + args, tmp, expect=2)
            check(needle in p.stderr and p.stderr.count("\n") == 1, f"--html {args}: {p.stderr.strip()!r}")
        check(not os.path.exists(os.path.join(tmp, "page.txt")) and not os.path.exists(os.path.join(tmp, "same.html")),
              "a refused --html wrote a file")
    if failures:
        print(f"{len(failures)} failures")
        return 1
    print("attention html: bert, gpt2, translator and hostile pages drawn as their weights in headless Chromium")
    return 0


if __name__ == "__main__":
    sys.exit(main())
