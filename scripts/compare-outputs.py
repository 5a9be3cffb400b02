#!/usr/bin/python3
"""Records the outputs of every existing command with two tfx binaries and compares them byte for
byte (a refactor must not change any): stdout, stderr, exit code and every file a command writes.

The cases, all read from the repository or from the OLD binary's own command table:
  help      `tfx --help`, every command's `--help`, `--generate man|bash|zsh|python`
  examples  every example line of every command's help (the lines docs/reference.md shows)
  formats   every command with its defaults in every --format (table csv json npy md png svg),
            and with --lang ko (errors included: a command that needs an argument fails the same)
  docs      every `    $ tfx …` command of docs/*.md and README.md (as tests/python/check_tutorial.py
            runs them, with the Python snippet above it where the page makes an input file)
  gallery   scripts/gen-figures.sh into a copy of docs/ (every figure and figures.md)
  notebook  every code cell of scripts/gen-notebooks.py through python/tfx.py (stdout and the value
            of each cell's last expression; figures by their bytes)

    /usr/bin/python3 scripts/compare-outputs.py OLD_TFX NEW_TFX [--only help,examples,…] [--keep DIR]

Prints one line per differing case and a count; exits 1 when anything differs. Both binaries run
in the same directory path one after the other, with the same environment (built-in embedding,
no colour, fixed COLUMNS), so paths in messages agree. Cases that need torch or ../shared run when
those are there, and fail the same way for both binaries when not.
"""
import ast
import contextlib
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import json

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORMATS = ["table", "csv", "json", "npy", "md", "png", "svg"]
TIMEOUT = 120


def env_for(tfx_dir):
    env = {k: v for k, v in os.environ.items() if k not in ("TFX_EMBEDDINGS", "TFX_FONT", "COLUMNS", "TFX_LANG", "LANGUAGE")}
    env.update({"NO_COLOR": "1", "COLUMNS": "100", "LC_ALL": "C.UTF-8", "PATH": tfx_dir + os.pathsep + env.get("PATH", "")})
    return env


def snapshot(d):
    """{relative path: sha256} of every file under d."""
    out = {}
    for base, _, files in os.walk(d):
        for f in files:
            p = os.path.join(base, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, d)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def run_case(argv_or_shell, cwd, env, shell=False):
    try:
        r = subprocess.run(argv_or_shell, cwd=cwd, env=env, capture_output=True, shell=shell, timeout=TIMEOUT,
                           executable="/bin/bash" if shell else None, stdin=subprocess.DEVNULL)
        return {"rc": r.returncode, "out": hashlib.sha256(r.stdout).hexdigest(), "err": r.stderr.decode("utf-8", "replace"),
                "out_text": r.stdout[:4000].decode("utf-8", "replace")}
    except subprocess.TimeoutExpired:
        return {"rc": "timeout"}


def command_table(tfx):
    proc = subprocess.run([tfx, "--generate", "python"], capture_output=True, check=True)
    return json.loads(proc.stdout)["commands"]


def cases(tfx_old, only):
    """(kind, name, shell command using `tfx`) for every case but the gallery and the notebook."""
    table = command_table(tfx_old)
    out = []
    if "help" in only:
        out.append(("help", "tfx --help", "tfx --help"))
        out.append(("help", "tfx", "tfx"))
        for what in ("man", "bash", "zsh", "python"):
            out.append(("help", f"--generate {what}", f"tfx --generate {what}"))
        for c in table:
            out.append(("help", c["command"] + " --help", f"tfx {c['command']} --help"))
    if "examples" in only:
        for c in table:
            examples = c.get("examples") or ""
            for ex in examples.split("\n") if isinstance(examples, str) else examples:
                cmd = re.sub(r"\s+#.*$", "", ex).strip()
                if cmd.startswith("tfx ") and "--view" not in cmd:
                    out.append(("examples", cmd, cmd))
    if "formats" in only:
        for c in table:
            if c.get("subcommands") and c["command"] in ("embeddings", "model"):
                continue
            flags = {f for o in c["options"] for f in o["flags"]}
            if "--format" not in flags:
                out.append(("formats", c["command"], f"tfx {c['command']}"))
                continue
            for f in FORMATS:
                target = f" -o out.{f}" if f in ("png", "svg", "npy") else ""
                out.append(("formats", f"{c['command']} --format {f}", f"tfx {c['command']} --format {f}{target}"))
            if "--lang" in flags:
                out.append(("formats", f"{c['command']} --lang ko", f"tfx {c['command']} --lang ko"))
    if "docs" in only:
        sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
        import check_tutorial as ct  # noqa: E402
        pages = sorted(os.path.join(ROOT, "docs", p) for p in os.listdir(os.path.join(ROOT, "docs")) if p.endswith(".md"))
        pages.append(os.path.join(ROOT, "README.md"))
        for page in pages:
            lines = open(page, encoding="utf-8").read().split("\n")
            for line_no, cmd, _ in ct.blocks(lines):
                command = re.sub(r"\s+#.*$", "", cmd)
                if "--view" in command:
                    continue
                code = ct.python_snippet(lines, line_no)
                prefix = ""
                needs = [f for f in re.findall(r"\S+\.(?:npy|safetensors)\b", command) if not f.startswith("<")]
                if needs and code is not None:
                    prefix = f"{sys.executable} -c {shlex_quote(code)} >/dev/null 2>&1; "
                out.append(("docs", f"{os.path.relpath(page, ROOT)}:{line_no}: {command}", prefix + command))
    return out


def shlex_quote(s):
    import shlex
    return shlex.quote(s)


def record_commands(tfx, the_cases, workdir):
    bindir = os.path.join(workdir, "bin")
    os.makedirs(bindir, exist_ok=True)
    shutil.copy2(tfx, os.path.join(bindir, "tfx"))
    env = env_for(bindir)
    results = {}
    for kind, name, cmd in the_cases:
        run = os.path.join(workdir, "run")
        shutil.rmtree(run, ignore_errors=True)
        os.makedirs(run)
        # the repository's data (tests/data, samples) at the same relative places the docs use
        for link in ("tests", "samples", "data", "python"):
            os.symlink(os.path.join(ROOT, link), os.path.join(run, link))
        r = run_case(cmd, run, env, shell=True)
        for link in ("tests", "samples", "data", "python"):
            os.unlink(os.path.join(run, link))
        r["files"] = snapshot(run)
        results[(kind, name)] = r
    return results


def record_gallery(tfx, workdir):
    docs = os.path.join(workdir, "docs")
    shutil.rmtree(docs, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "docs"), docs)
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "gen-figures.sh"), tfx, docs], capture_output=True,
                       env=env_for(os.path.dirname(tfx)))
    return {("gallery", "gen-figures.sh"): {"rc": r.returncode, "err": r.stderr.decode("utf-8", "replace"),
                                            "files": snapshot(os.path.join(docs, "img", "gallery")),
                                            "out": hashlib.sha256(open(os.path.join(docs, "figures.md"), "rb").read()).hexdigest()}}


def notebook_cells():
    src = open(os.path.join(ROOT, "scripts", "gen-notebooks.py"), encoding="utf-8").read()
    tree = ast.parse(src)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "cells" for t in node.targets):
            # a list of (M or C, "text") tuples: M and C are names, so read the tuples' parts
            out = []
            for elt in node.value.elts:
                kind, text = elt.elts[0], elt.elts[1]
                if getattr(kind, "id", "") == "C":
                    out.append(ast.literal_eval(text))
            return out
    return []


def record_notebook(tfx, workdir):
    """Runs the notebook's code cells in order in a child Python (the helper imported there), so one
    binary's state cannot leak into the other's."""
    run = os.path.join(workdir, "nb")  # the notebook's cwd is samples/: ../tests is the repository's
    shutil.rmtree(run, ignore_errors=True)
    os.makedirs(run)
    if not os.path.lexists(os.path.join(workdir, "tests")):
        os.symlink(os.path.join(ROOT, "tests"), os.path.join(workdir, "tests"))
    script = os.path.join(workdir, "nb_runner.py")
    with open(script, "w", encoding="utf-8") as fh:
        fh.write(NB_RUNNER)
    cells = notebook_cells()
    env = env_for(os.path.dirname(tfx))
    env["TFX_BINARY"] = tfx
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable  # Debian's, with numpy
    r = subprocess.run([python, script, json.dumps(cells)], cwd=run, env=env, capture_output=True, timeout=1800)
    results = {}
    try:
        per_cell = json.loads(r.stdout)
    except ValueError:
        per_cell = [{"crash": r.stderr.decode("utf-8", "replace")[-2000:]}]
    for i, c in enumerate(per_cell):
        results[("notebook", f"cell {i}")] = {"rc": 0, "out": hashlib.sha256(json.dumps(c, sort_keys=True).encode()).hexdigest(),
                                              "out_text": json.dumps(c)[:4000], "err": "", "files": {}}
    return results


NB_RUNNER = r'''
import ast, contextlib, hashlib, io, json, os, sys
import tfx
ns = {}
out = []
for code in json.loads(sys.argv[1]):
    buf = io.StringIO()
    rec = {}
    try:
        tree = ast.parse(code)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        with contextlib.redirect_stdout(buf):
            exec(compile(tree, "<cell>", "exec"), ns)
            if last is not None:
                v = eval(compile(ast.Expression(last.value), "<cell>", "eval"), ns)
                if isinstance(v, tfx.Figure):
                    rec["value"] = [v.format, hashlib.sha256(v.data).hexdigest()]
                elif hasattr(v, "tobytes"):
                    rec["value"] = [str(getattr(v, "shape", "")), hashlib.sha256(v.tobytes()).hexdigest()]
                else:
                    rec["value"] = repr(v)
    except Exception as e:  # the same failure for both binaries is no difference
        rec["error"] = f"{type(e).__name__}: {e}"
    rec["stdout"] = buf.getvalue()
    out.append(rec)
print(json.dumps(out))
'''


def main():
    args = sys.argv[1:]
    only = {"help", "examples", "formats", "docs", "gallery", "notebook"}
    keep = None
    if "--only" in args:
        i = args.index("--only")
        only = set(args[i + 1].split(","))
        del args[i:i + 2]
    if "--keep" in args:
        i = args.index("--keep")
        keep = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    old, new = (os.path.realpath(a) for a in args)
    for b in (old, new):
        if not os.access(b, os.X_OK):
            print(f"compare-outputs: {b} is not an executable", file=sys.stderr)
            return 2
    the_cases = cases(old, only)
    work = keep or tempfile.mkdtemp(prefix="tfx-compare-")
    results = []
    for tfx in (old, new):
        w = os.path.join(work, "w")
        shutil.rmtree(w, ignore_errors=True)
        os.makedirs(w)
        res = record_commands(tfx, the_cases, w)
        if "gallery" in only:
            res.update(record_gallery(os.path.join(w, "bin", "tfx"), w))
        if "notebook" in only:
            res.update(record_notebook(os.path.join(w, "bin", "tfx"), w))
        results.append(res)
    a, b = results
    differ = 0
    for key in a:
        ra, rb = a[key], b.get(key)
        if rb is None or any(ra.get(f) != rb.get(f) for f in ("rc", "out", "err", "files")):
            differ += 1
            what = [f for f in ("rc", "out", "err", "files") if rb is None or ra.get(f) != rb.get(f)]
            print(f"DIFFERS [{key[0]}] {key[1]}: {', '.join(what)}")
            if "err" in what:
                print(f"    old stderr: {ra.get('err', '')[:300]!r}\n    new stderr: {(rb or {}).get('err', '')[:300]!r}")
            if "files" in what and rb is not None:
                fa, fb = ra.get("files", {}), rb.get("files", {})
                names = sorted(n for n in set(fa) | set(fb) if fa.get(n) != fb.get(n))
                print(f"    files: {', '.join(names[:10])}")
    by_kind = {}
    for k in a:
        by_kind[k[0]] = by_kind.get(k[0], 0) + 1
    print(f"compare-outputs: {len(a)} cases ({', '.join(f'{k} {n}' for k, n in sorted(by_kind.items()))}); {differ} differ")
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
