"""docs/tutorial.md (and the other pages given) show real output: runs every `    $ tfx …`
command of each page with the built tfx (bash, so the `<(…)` process substitutions work) in a temporary directory and checks
that each output line the tutorial prints is in the command's output, in order. A line "…"
stands for lines left out; "wrote F.png (W×H)" compares the file name only (the size follows the
fonts); a command shown with a "tfx: error:" line must fail, any other must succeed. A command
whose input files the page makes with PyTorch is skipped without torch.

    TFX_BINARY=build/tfx /usr/bin/python3 tests/python/check_tutorial.py docs/tutorial.md docs/attention.md
"""
import os
import re
import subprocess
import sys
import tempfile

from build_kind import sanitizer_build, skip_long_training

WROTE = re.compile(r"^wrote (\S+\.(?:png|svg)) \(\d+×\d+\)$")


def blocks(lines):
    """(line number, command, shown output lines) for each indented `$ tfx` line."""
    i = 0
    while i < len(lines):
        if not lines[i].startswith("    $ tfx "):
            i += 1
            continue
        cmd, out, j = lines[i][6:], [], i + 1
        while j < len(lines) and not lines[j].startswith("    $ "):
            if lines[j].startswith("    "):
                out.append(lines[j][4:])
            elif lines[j] == "" and j + 1 < len(lines) and lines[j + 1].startswith("    ") and not lines[j + 1].startswith("    $ "):
                pass
            else:
                break
            j += 1
        yield i + 1, cmd, out
        i = j


TINY = re.compile(r"\b\d(?:\.\d+)?e-(?:0[6-9]|[1-9]\d)\b")
AT = re.compile(r"\(at [^)]*\)")


SANITIZER = sanitizer_build()


def rounding_free(line):
    """The line with rounding-level numbers (below 1e-5, e.g. a float32 check's max error) made
    one symbol, and where it has one, the "(at p = …)" that names where that error occurred: both
    change with the compiler and its flags (GCC -O3 vs the clang sanitizer build), nothing else may."""
    if SANITIZER:
        # the sanitizer build (clang -O1) rounds the last printed digit and trains along another
        # float path; the Release build checks every number, this one the words around them
        return re.sub(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", "#", line)
    out = TINY.sub("<rounding>", line)
    return AT.sub("(at …)", out) if out != line else out


def same(shown, got):
    m = WROTE.match(shown)
    if m:
        g = WROTE.match(got)
        return bool(g) and g.group(1) == m.group(1)
    return rounding_free(got.rstrip()) == rounding_free(shown.rstrip())


def missing_lines(shown, got):
    """The shown lines not found in `got` in order ("…" and blank lines skipped)."""
    k, bad = 0, []
    for line in shown:
        if line.strip() in ("", "…"):
            continue
        j = k
        while j < len(got) and not same(line, got[j]):
            j += 1
        if j == len(got):
            bad.append(line)
        else:
            k = j + 1
    return bad


def python_snippet(lines, before):
    """The indented Python block right above line `before` (1-based), if any."""
    end = before - 2
    while end >= 0 and lines[end].strip() == "":
        end -= 1
    start = end
    while start >= 0 and lines[start].startswith("    "):
        start -= 1
    code = [l[4:] for l in lines[start + 1:end + 1]]
    return "\n".join(code) if code and code[0].startswith("import") else None


def check_page(path, tfx, env):
    """(commands checked, commands with other output, commands skipped) of one Markdown page."""
    lines = open(path, encoding="utf-8").read().split("\n")
    failures, checked, skipped = 0, 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        # docs/models.md runs the committed tiny checkpoints as tests/data/hf_models/…, as from the repo
        repo = os.path.dirname(os.path.dirname(os.path.abspath(path)))
        os.makedirs(os.path.join(tmp, "tests"))
        os.symlink(os.path.join(repo, "tests", "data"), os.path.join(tmp, "tests", "data"))
        os.symlink(os.path.join(repo, "samples"), os.path.join(tmp, "samples"))  # samples/attention/… as the pages use them
        os.symlink(os.path.join(repo, "data"), os.path.join(tmp, "data"))  # data/teaching_gpt/corpus.txt, as docs/models.md uses it
        # the real tokenizers the pages name as gpt2/, llama3/, qwen3/, bert-base-uncased/ (../shared/data/tokenizers,
        # beside the checkout; a command naming one is skipped, and says so, when it is absent), and the paragraphs
        shared = os.path.join(os.path.dirname(repo), "shared", "data", "tokenizers")
        real = sorted(os.listdir(shared)) if os.path.isdir(shared) else []
        for name in real:
            os.symlink(os.path.join(shared, name), os.path.join(tmp, name))
        for name in ("paragraph_en.txt", "paragraph_ko.txt"):
            if os.path.exists(os.path.join(repo, "tests", "data", "tokenize", name)):
                os.symlink(os.path.join(repo, "tests", "data", "tokenize", name), os.path.join(tmp, name))
        for line_no, cmd, shown in blocks(lines):
            command = re.sub(r"\s+#.*$", "", cmd)
            absent = [d for d in ("gpt2/", "llama3/", "qwen3/", "bert-base-uncased/")
                      if re.search(r"(^|\s)" + re.escape(d) + r"(\s|$)", command) and d[:-1] not in real]
            if absent:
                print(f"skipped {path}:{line_no}: {cmd} (needs {', '.join(absent)} from ../shared/data/tokenizers)")
                skipped += 1
                continue
            why = skip_long_training(command)
            if why:
                print(f"skipped {path}:{line_no}: {cmd} (the sanitizer build: {why})")
                skipped += 1
                continue
            needs = [f for f in re.findall(r"\S+\.(?:npy|safetensors)\b", command) if not f.startswith("<")]
            missing = [f for f in needs if not os.path.exists(os.path.join(tmp, f))]
            if missing:
                code = python_snippet(lines, line_no)
                try:
                    import numpy
                    import torch  # noqa: F401  (the page's snippet uses it)
                except ImportError:
                    code = None
                if code is None:
                    print(f"skipped {path}:{line_no}: {cmd} (needs {', '.join(missing)})")
                    skipped += 1
                    continue
                subprocess.run([sys.executable, "-c", code], cwd=tmp, check=True)
                if not os.path.exists(os.path.join(tmp, "x.npy")):
                    numpy.save(os.path.join(tmp, "x.npy"), numpy.random.default_rng(0).standard_normal((5, 8)).astype("float32"))
            r = subprocess.run(["bash", "-c", tfx + command[3:]], cwd=tmp, env=env, capture_output=True, text=True)
            got = (r.stdout + r.stderr).rstrip("\n").split("\n")
            bad = missing_lines(shown, got)
            checked += 1
            expects_error = any(l.startswith("tfx: error: ") for l in shown)
            if (r.returncode != 0) != expects_error or bad:
                failures += 1
                print(f"{path}:{line_no}: `{cmd}` (exit {r.returncode}) prints other output than the page shows:")
                for b in bad:
                    print(f"  not in the output: {b}")
                print("  output:\n" + "\n".join("    " + g for g in got[:40]))
    return checked, failures, skipped


def main():
    tfx = os.environ.get("TFX_BINARY", "build/tfx")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "TFX_EMBEDDINGS", "TFX_FONT")}
    env["NO_COLOR"] = "1"
    checked, failures, skipped = 0, 0, 0
    for path in sys.argv[1:]:
        c, f, s = check_page(path, tfx, env)
        checked, failures, skipped = checked + c, failures + f, skipped + s
    print(f"{checked} documented commands checked, {failures} with other output, {skipped} skipped")
    print(f"{checked - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
