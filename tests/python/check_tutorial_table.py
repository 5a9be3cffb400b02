"""docs/tutorial.md's table of the notes' worked examples tells the truth about the CLI:

1. every command registered in tfx (the sections of `tfx --help`, and each one's "Subcommands:")
   is shown in the table (a group such as `tfx model` by its subcommands);
2. every command the table shows exists, and every flag it names (in the command, or in the
   `--flag` spans beside it) is one of that command's flags in its --help;
3. every command the table shows runs (bash, in a temporary directory holding `samples`, `tests`
   and the files of ../shared/data by name) and exits 0. A command naming an input file that is
   not there (a data set when ../shared/data is absent; x.npy and layer.safetensors, which the
   reader makes with PyTorch) is listed as not run; the others still are.

    TFX_BINARY=build/tfx /usr/bin/python3 tests/python/check_tutorial_table.py docs/tutorial.md
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

from build_kind import skip_long_training

TFX = os.path.abspath(os.environ.get("TFX_BINARY", "build/tfx"))
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("TFX_SHARED_DATA", os.path.join(SOURCE, "..", "shared", "data"))
# the tutorial's file names → the files of ../shared/data standing in for them
DATA_FILES = {"questions-words.txt": "questions-words.txt", "wordsim353.tsv": "wordsim353.tsv",
              "glove.6B.100d.txt": "glove.6B.100d.top2604.txt"}


def help_text(words):
    r = subprocess.run([TFX] + words + ["--help"], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return r.stdout


def listed(text, heading_re):
    """Names indented by two spaces under headings matching heading_re, up to the next blank line."""
    names, inside = [], False
    for line in text.splitlines():
        if re.match(heading_re, line):
            inside = True
            continue
        if inside:
            m = re.match(r"^  ([a-z][a-z0-9-]*)\s{2,}", line)
            if m:
                names.append(m.group(1))
            elif not line.strip():
                inside = False
    return names


def registered():
    top = listed(help_text([]), r"^[A-Z][A-Za-z ]+:$")
    top = [c for c in top if c not in ("h",)]
    out = []
    for c in top:
        out.append([c])
        for s in listed(help_text([c]) or "", r"^Subcommands:$"):
            out.append([c, s])
    return out


def table_rows(lines):
    start = next(i for i, l in enumerate(lines) if l.startswith("| Worked example in the notes | Command |"))
    rows = []
    for i in range(start + 2, len(lines)):
        if not lines[i].startswith("|"):
            break
        rows.append((i + 1, lines[i]))
    return rows


def main():
    path = sys.argv[1]
    lines = open(path, encoding="utf-8").read().splitlines()
    commands = registered()
    failures, shown, runs = [], [], []
    for number, row in table_rows(lines):
        cell = row.rstrip("|").split("|")[-1]
        spans = re.findall(r"`([^`]*)`", cell)
        row_commands = [s for s in spans if s.startswith("tfx ")]
        extra_flags = [f for s in spans if not s.startswith("tfx ") for f in re.findall(r"(--[a-z][a-z0-9-]*)", s)]
        if not row_commands:
            continue
        for k, cmd in enumerate(row_commands):
            words = shlex.split(cmd.replace("<(", "(").replace("…", ""), posix=True)[1:] if "<(" not in cmd else cmd.split()[1:]
            path_words = [w for w in words[:2] if re.fullmatch(r"[a-z][a-z0-9-]*", w)]
            known = [c for c in commands if c == path_words[:len(c)]]
            if not known:
                failures.append(f"{path}:{number}: `{cmd}`: no such command")
                continue
            name = max(known, key=len)
            shown.append(name)
            text = help_text(name)
            flags = set(re.findall(r"(--[a-z][a-z0-9-]*)", text))
            named = re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", cmd) + (extra_flags if k == 0 else [])
            for f in named:
                if f not in flags:
                    failures.append(f"{path}:{number}: `{cmd}`: tfx {' '.join(name)} has no flag {f}")
            if "…" not in cmd:
                runs.append((number, cmd))
    for c in commands:
        if not any(n[:len(c)] == c for n in shown):  # a group (tfx model) is shown by its subcommands
            failures.append(f"{path}: the table does not show `tfx {' '.join(c)}` (registered in the CLI)")

    with tempfile.TemporaryDirectory() as tmp:
        for d in ("samples", "tests", "data"):
            os.symlink(os.path.join(SOURCE, d), os.path.join(tmp, d))
        have_shared = os.path.isdir(SHARED)
        for name, real in DATA_FILES.items():
            if have_shared and os.path.exists(os.path.join(SHARED, real)):
                os.symlink(os.path.join(SHARED, real), os.path.join(tmp, name))
        ran = 0
        for number, cmd in runs:
            # input files the reader brings (x.npy, layer.safetensors from PyTorch; the data sets)
            # (a file the command writes, after -o/--output, is not an input)
            files = re.findall(r"(?<![\w/.-])([\w.-]+\.(?:npy|safetensors|txt|tsv))(?![\w.-])",
                               re.sub(r"(?:-o|--output)(?:\s+|=)\S+", "", cmd))
            missing = [n for n in files if not os.path.exists(os.path.join(tmp, n))]
            if missing:
                # (not "TFX-SKIP": ctest would call the whole check skipped, and the rest did run)
                print(f"{path}:{number}: `{cmd}` not run: it needs {', '.join(missing)} "
                      f"({'../shared/data is not here' if any(n in DATA_FILES for n in missing) else 'files the page makes with PyTorch'})")
                continue
            why = skip_long_training(cmd)
            if why:
                print(f"{path}:{number}: `{cmd}` not run in the sanitizer build: {why}")
                continue
            full = shlex.quote(TFX) + cmd[3:]
            r = subprocess.run(["bash", "-c", full], cwd=tmp, capture_output=True, text=True, timeout=600)
            ran += 1
            if r.returncode != 0:
                failures.append(f"{path}:{number}: `{cmd}` exited {r.returncode}: {r.stderr.strip()[:300]}")
    for f in failures:
        print(f)
    print(f"{ran} of {len(runs)} table commands run, {len(commands)} registered commands checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
