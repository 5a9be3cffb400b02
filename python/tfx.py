"""tfx from Python: one call per tfx command, for lecture notebooks.

The helper runs the ``tfx`` binary (so it can never disagree with the command line) and turns
its output into Python values. Standard library and numpy (pandas when installed). Every command
is a function whose signature and docstring come from tfx's own command table
(``tfx --generate python``): ``help(tfx.attention)`` lists every flag, default and example.

    import tfx
    pe = tfx.pe(len=50, dim=128)              # tfx.Matrix (50, 128): a float32 ndarray with labels
    tfx.pe(dim=4, pos=1, i=2)                 # one number -> float 0.00999983…
    tfx.similarity("king", "queen")           # the cosine, a float, like gensim
    tfx.similar("king", k=3)                  # [(word, cosine), …] like gensim's most_similar
    tfx.tokenize("I love playing football")   # a table -> pandas DataFrame (else a list of dicts)
    tfx.pe.sim(len=50, dim=128)               # subcommands are attributes ("tfx pe sim")
    tfx.show("pe sim", len=50, dim=128)       # the figure (PNG), shown inline in Jupyter
    tfx.analogy("king", "man", "woman")       # positional arguments stay positional
    tfx.table("layernorm")                    # the terminal table, as text
    tfx.json("attention", sentence="I love playing football", show="all")   # every matrix, labels

Arguments follow the CLI: ``len=50`` is ``--len=50``, ``original_max_pos=8192`` is
``--original-max-pos=8192``, ``from_="dog,cat"`` is ``--from=dog,cat`` (a trailing ``_`` avoids
Python keywords), ``causal=True`` is ``--causal`` (False/None leave the flag out), a list is
joined with commas (``dk=[1, 8, 64]`` is ``--dk=1,8,64``) and a list of lists repeats the flag
(``ids=[[0, 2, 5], [0, 99, 24]]``); a 2-D numpy array is a matrix input, handed to tfx as CSV
through a pipe (``tfx.attention(q=np.eye(2), k=K, v=V)``). A one-letter name becomes ``--k``
when the command has such a flag and ``-k`` otherwise (``tfx.analogy(..., k=3)`` is ``-k 3``).
``stdin="..."`` feeds text to the command (``tfx.analogy(batch="-", stdin="king man woman\\n")``).

A failing command raises ``tfx.TfxError`` whose message is tfx's one-line error (without the
``tfx: error:`` prefix); ``.exit_code`` is 2 for a usage error and 1 for a data error. Lines tfx
writes on stderr while succeeding (e.g. skipped batch queries) are passed on to ``sys.stderr``.

The binary is, in order: ``tfx.BINARY`` when set; ``$TFX_BINARY``; ``build/tfx`` of the checkout
this file sits in (``python/tfx.py``); ``bin/tfx`` under the prefix this file was installed to
(``cmake --install``); ``tfx`` on ``PATH``.
"""

import io
import json as _json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np

__all__ = ["TfxError", "Figure", "Matrix", "Text", "npy", "json", "table", "show", "run", "binary", "version", "commands",
           "pe", "rope", "tokenize", "analogy", "embeddings", "similar", "similarity", "lookup", "direction",
           "project", "eval_analogies", "eval_similarity", "attention", "encoder", "decoder", "complexity",
           "patches", "layernorm", "lr"]

BINARY = None  # set to a path to pick the tfx binary explicitly
LANG = None    # "ko": figures, tables and notes in Korean (passed as --lang to every command that has it)


class TfxError(RuntimeError):
    """tfx exited with an error. str(e) is tfx's one-line message; exit_code 2 = usage, 1 = data."""

    def __init__(self, message, exit_code, command, stderr=""):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.command = command
        self.stderr = stderr


class Text(str):
    """Text that Jupyter shows as it is (a table), not as a quoted string."""

    def __repr__(self):
        return str(self)


class Figure:
    """A figure tfx drew (PNG or SVG bytes); Jupyter shows it inline."""

    def __init__(self, data, fmt):
        self.data = data
        self.format = fmt  # "png" or "svg"

    def _repr_png_(self):
        return self.data if self.format == "png" else None

    def _repr_svg_(self):
        return self.data.decode("utf-8") if self.format == "svg" else None

    def save(self, path):
        Path(path).write_bytes(self.data)
        return path

    def __repr__(self):
        return f"<tfx.Figure {self.format}, {len(self.data)} bytes>"


# ---- finding and running the binary ----

def binary():
    """The tfx executable this helper runs (see the module docstring for the search order)."""
    if BINARY:
        return str(BINARY)
    env = os.environ.get("TFX_BINARY")
    if env:
        return env
    here = Path(__file__).resolve().parent
    if here.name == "python" and (here.parent / "build" / "tfx").is_file():  # a checkout
        return str(here.parent / "build" / "tfx")
    for up in list(here.parents)[:4]:  # <prefix>/lib/python3*/…-packages/tfx.py -> <prefix>/bin/tfx
        if (up / "bin" / "tfx").is_file():
            return str(up / "bin" / "tfx")
    found = shutil.which("tfx")
    if found:
        return found
    raise TfxError("cannot find the tfx binary: set TFX_BINARY or tfx.BINARY, build the checkout "
                   "(cmake --build build) or put tfx on PATH", 1, [])


def _words(command):
    if isinstance(command, Command) or hasattr(command, "words"):
        return list(command.words)
    if isinstance(command, str):
        return command.split()
    return [str(w) for w in command]


_help_cache = {}


def _has_flag(words, flag):
    """True when `tfx WORDS --help` lists FLAG (cached per binary and command; False when the help
    cannot be read: the real call then reports the problem)."""
    key = (binary(), tuple(words))
    if key not in _help_cache:
        try:
            out = subprocess.run([binary(), *words, "--help"], capture_output=True).stdout
        except OSError:
            out = b""
        _help_cache[key] = out.decode("utf-8", "replace")
    return re.search(r"(^|[\s,])" + re.escape(flag) + r"(?![\w-])", _help_cache[key]) is not None


def _long_one_letter(words, name):
    """True when the command has a long flag --NAME (attention's --k) rather than -NAME (analogy's -k)."""
    return _has_flag(words, "--" + name)


def _value(v):
    if isinstance(v, (list, tuple, np.ndarray)):
        return ",".join(_value(x) for x in v)
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(v)


class _Matrix:
    """A 2-D array argument: tfx reads it as CSV from a pipe, /dev/fd/N (no temporary file)."""

    def __init__(self, prefix, array):
        self.prefix = prefix  # "--q=" (or "" for a positional argument / after a short flag)
        rows = np.atleast_2d(np.asarray(array, dtype=np.float64))
        self.data = "".join(",".join(repr(float(x)) for x in row) + "\n" for row in rows).encode()


def _arg(prefix, v):
    if isinstance(v, np.ndarray) and v.ndim == 2:
        return _Matrix(prefix, v)
    return prefix + _value(v)


def _argv(words, args, flags):
    argv = list(words) + [_arg("", a) for a in args]
    for name, v in flags.items():
        if v is None or v is False:
            continue
        name = name.rstrip("_").replace("_", "-")
        if len(name) == 1 and not _long_one_letter(words, name):
            flag = "-" + name
            items = v if _nested(v) else [v]
            for item in items:
                argv += [flag] if item is True else [flag, _arg("", item)]
            continue
        flag = "--" + name
        if v is True:
            argv.append(flag)
        elif _nested(v):
            argv += [f"{flag}={_value(item)}" for item in v]
        else:
            argv.append(_arg(flag + "=", v))
    return argv


def _nested(v):
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(x, (list, tuple, np.ndarray)) for x in v)


_OUTPUT_FLAGS = {"format", "o", "output", "png", "svg", "view"}


def _run(argv, stdin=None):
    """Runs tfx ARGV; returns (stdout bytes, stderr text) or raises TfxError with tfx's message."""
    cmd, pipes = [binary()], []
    for a in argv:  # 2-D arrays go through pipes, each fed by a thread while tfx reads
        if isinstance(a, _Matrix):
            r, w = os.pipe()
            pipes.append((r, threading.Thread(target=_feed, args=(w, a.data), daemon=True)))
            cmd.append(f"{a.prefix}/dev/fd/{r}")
        else:
            cmd.append(a)
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    try:
        for _, thread in pipes:
            thread.start()
        proc = subprocess.run(cmd, input=data, capture_output=True, pass_fds=[r for r, _ in pipes])
    except OSError as e:
        raise TfxError(f"cannot run {cmd[0]}: {e.strerror} (set TFX_BINARY or tfx.BINARY)", 1, cmd) from None
    finally:
        for r, thread in pipes:
            os.close(r)  # a feeder tfx never read from now gets EPIPE and stops
            thread.join()
    err = proc.stderr.decode("utf-8", "replace")
    if proc.returncode != 0:
        lines = [ln for ln in err.splitlines() if ln.startswith("tfx: error: ")]
        message = lines[-1][len("tfx: error: "):] if lines else (err.strip() or f"tfx exited with status {proc.returncode}")
        raise TfxError(message, proc.returncode, cmd, err)
    return proc.stdout, err


def _feed(fd, data):
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    except BrokenPipeError:
        pass


def _pass_stderr(err):
    if err:
        sys.stderr.write(err)


def _call(command, args, flags, extra):
    bad = _OUTPUT_FLAGS.intersection(flags)
    if bad:
        raise TypeError(f"{sorted(bad)[0]}=: the helper chooses the output; use tfx.npy / tfx.json / tfx.table / tfx.show")
    stdin = flags.pop("stdin", None)
    words = _words(command)
    if LANG and "lang" not in flags and _has_option(words, "lang"):
        flags["lang"] = LANG
    return _run(_argv(words, args, flags) + extra, stdin)


def _has_option(words, name):
    try:
        spec = commands().get(" ".join(words))
    except TfxError:
        return False
    return bool(spec) and any(o["name"] == name for o in spec.get("options", []))


# ---- one function per output kind ----

def run(command, *args, **flags):
    """Runs `tfx COMMAND ARGS --FLAGS` as given and returns stdout as bytes (errors raise TfxError)."""
    stdin = flags.pop("stdin", None)
    out, err = _run(_argv(_words(command), args, flags), stdin)
    _pass_stderr(err)
    return out


def npy(command, *args, **flags):
    """The command's main matrix as a numpy array (tfx … --format npy, read from stdout)."""
    out, err = _call(command, args, flags, ["--format", "npy"])
    _pass_stderr(err)
    return np.load(io.BytesIO(out), allow_pickle=False)


def json(command, *args, **flags):
    """The whole result as a dict (tfx … --format json): params, data, rows/columns, matrices,
    tables, notes, summary — see docs/formats.md."""
    out, err = _call(command, args, flags, ["--format", "json"])
    _pass_stderr(err)
    return _json.loads(out)


def table(command, *args, **flags):
    """The table tfx prints in a terminal, as text."""
    out, err = _call(command, args, flags, ["--format", "table"])
    _pass_stderr(err)
    return Text(out.decode("utf-8"))


def show(command, *args, fmt="png", **flags):
    """The command's figure, shown inline when it is the last expression of a Jupyter cell
    (elsewhere in a cell: display(tfx.show(...))). PNG by default (compact in a notebook);
    fmt="svg" for a vector figure; fmt="auto" takes SVG when this tfx has --svg, else PNG.
    Returns a tfx.Figure (.save(path), ._repr_png_/_repr_svg_ for Jupyter)."""
    words = _words(command)
    if fmt not in ("auto", "png", "svg"):
        raise ValueError(f"fmt={fmt!r}: expected 'auto', 'png' or 'svg'")
    if fmt == "svg" or (fmt == "auto" and _has_flag(words, "--svg")):
        try:
            out, err = _call(words, args, dict(flags), ["--svg=-"])
            if fmt == "svg" or b"<svg" in out[:4096]:
                _pass_stderr(err)
                return Figure(out, "svg")
        except TfxError:
            if fmt == "svg":
                raise
    out, err = _call(words, args, flags, ["--png=-"])
    _pass_stderr(err)
    return Figure(out, "png")


def version():
    """`tfx --version`, e.g. "tfx 0.1.0"."""
    return _run(["--version"])[0].decode().strip()


# ---- what a command returns ----

class Matrix(np.ndarray):
    """A matrix result: a float32 numpy array that keeps tfx's labels.

    ``.rows`` / ``.cols`` are the row and column labels (tokens, words, steps, or None when the
    axis is just 0, 1, 2 …), ``.row_axis`` / ``.col_axis`` their names ("pos", "i", "query",
    "key" …), ``.notes`` tfx's notes, ``.params`` the parameters used, ``.matrices`` the other named
    matrices of the result (attention's q, k, v, scores … with ``show="all"``), each a Matrix.
    ``.to_pandas()`` gives a labelled DataFrame (pandas, Debian python3-pandas)."""

    def __new__(cls, values, rows=None, cols=None, row_axis=None, col_axis=None, notes=(), params=None):
        obj = np.asarray(values, dtype=np.float32).view(cls)
        obj.rows, obj.cols = rows, cols
        obj.row_axis, obj.col_axis = row_axis, col_axis
        obj.notes, obj.params, obj.matrices = list(notes), dict(params or {}), {}
        return obj

    def __array_finalize__(self, obj):
        # a slice or a computed array is a plain array of numbers: labels only survive unchanged shapes
        same = obj is not None and getattr(obj, "shape", None) == self.shape
        for name in ("rows", "cols", "row_axis", "col_axis"):
            setattr(self, name, getattr(obj, name, None) if same else None)
        self.notes = getattr(obj, "notes", []) if same else []
        self.params = getattr(obj, "params", {}) if same else {}
        self.matrices = getattr(obj, "matrices", {}) if same else {}

    def __reduce__(self):  # pickles (multiprocessing, joblib) as a plain array
        return np.asarray(self).__reduce__()

    def to_pandas(self):
        """The matrix as a pandas DataFrame with the row and column labels (2-D results only)."""
        import pandas as pd
        if self.ndim != 2:
            raise ValueError(f"to_pandas(): a {self.ndim}-D result has no table form; index it first")
        frame = pd.DataFrame(np.asarray(self), index=self.rows, columns=self.cols)
        frame.index.name, frame.columns.name = self.row_axis, self.col_axis
        return frame


def _labels(values, n):
    return [str(v) for v in values] if isinstance(values, list) and len(values) == n else None


def _matrix(d):
    data = np.asarray(d["data"], dtype=np.float32)
    rows = _labels(d.get("rows"), data.shape[0]) if data.ndim >= 1 else None
    cols = _labels(d.get("columns"), data.shape[-1]) if data.ndim >= 2 else None
    return Matrix(data, rows, cols, d.get("row_axis"), d.get("col_axis"), d.get("notes", ()), d.get("params"))


def _table(records):
    """A table: a pandas DataFrame when pandas is installed, else a list of dicts."""
    try:
        import pandas as pd
    except ImportError:
        return records
    return pd.DataFrame.from_records(records)


def _is_numeric_matrix(data):
    def numeric(x):
        return isinstance(x, (int, float)) and not isinstance(x, bool) or (isinstance(x, list) and all(map(numeric, x)))
    return isinstance(data, list) and len(data) > 0 and isinstance(data[0], list) and numeric(data)


def _ranking(records):
    """[(word, score), …] in tfx's order, like gensim's most_similar."""
    out = []
    for r in records:
        word = r.get("word", r.get("token"))
        score = next((v for k, v in r.items() if k not in ("word", "token", "rank") and isinstance(v, (int, float))), None)
        out.append((word, score))
    return out


# The result kinds (docs/python.md lists each command's): a matrix → tfx.Matrix; a single number
# → float; a ranking → [(word, score)]; a table → DataFrame / list of dicts; everything else → dict.
def _result(command, d, flags):
    data = d.get("data")
    if command == "similarity" and "cosine" in d.get("summary", {}):
        return float(d["summary"]["cosine"])  # like gensim's similarity()
    if data is None and "value" in d.get("summary", {}):
        return float(d["summary"]["value"])  # tfx.pe(dim=4, pos=1, i=2) → 0.00999983
    if _is_numeric_matrix(data):
        m = _matrix(d)
        for name, sub in (d.get("matrices") or {}).items():
            if isinstance(sub, dict) and _is_numeric_matrix(sub.get("data")):
                m.matrices[name] = _matrix(sub)
        return m
    if command in ("similar", "analogy") and isinstance(data, list) and data and isinstance(data[0], dict) \
            and "word" in data[0] and not flags.get("batch"):
        return _ranking(data)
    if isinstance(data, list) and data and all(isinstance(r, dict) for r in data):
        return _table(data)
    return d


# ---- tfx.pe(...), tfx.pe.sim(...), …: the commands by name, from tfx's own command table ----

_spec_cache = {}


def commands():
    """tfx's command table as `tfx --generate python` prints it: {"pe sim": {description, options,
    examples, subcommands}, …} (cached per binary; {} for a tfx too old to print it)."""
    b = binary()
    try:
        stamp = os.stat(b).st_mtime_ns
    except OSError:
        stamp = None
    key = (b, stamp)
    if key not in _spec_cache:
        try:
            proc = subprocess.run([b, "--generate", "python"], capture_output=True)
            table = _json.loads(proc.stdout) if proc.returncode == 0 else {"commands": []}
        except (OSError, ValueError):
            table = {"commands": []}
        _spec_cache[key] = {c["command"]: c for c in table["commands"]}
    return _spec_cache[key]


_KEYWORDS = {"from", "in", "is", "as", "if", "or", "and", "not", "for", "with", "global", "lambda", "class",
             "def", "del", "pass", "return", "yield", "import", "raise", "try", "while", "else", "elif",
             "except", "finally", "break", "continue", "assert", "async", "await", "None", "True", "False"}
_HIDDEN = {"help", "format", "output", "png", "svg", "view"}  # the helper chooses the output


def _py_name(option):
    name = option["name"].replace("-", "_")
    return name + "_" if name in _KEYWORDS else name


def _py_default(option):
    text, kind = option["default"], option["type"]
    if kind == "FLAG":
        return False
    if text == "":
        return None
    try:
        if kind in ("INT", "UINT"):
            return int(text)
        if kind == "FLOAT":
            return float(text)
    except ValueError:
        pass
    return text


def _options(spec):
    return [o for o in spec.get("options", []) if o["name"] not in _HIDDEN]


def _signature(spec):
    import inspect
    params, seen = [], set()
    for o in _options(spec):
        if o["positional"]:
            kind = inspect.Parameter.VAR_POSITIONAL if o["repeats"] else inspect.Parameter.POSITIONAL_ONLY
            if kind == inspect.Parameter.VAR_POSITIONAL:
                params.append(inspect.Parameter(_py_name(o), kind))
            else:
                default = inspect.Parameter.empty if o["required"] else None
                params.append(inspect.Parameter(_py_name(o), kind, default=default))
    params.sort(key=lambda p: p.kind)
    for o in _options(spec):
        name = _py_name(o)
        if o["positional"] or name in seen:
            continue
        seen.add(name)
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=_py_default(o)))
    params.append(inspect.Parameter("stdin", inspect.Parameter.KEYWORD_ONLY, default=None))
    try:
        return inspect.Signature(params)
    except ValueError:  # an order Python cannot express: keywords only
        return inspect.Signature([p for p in params if p.kind == inspect.Parameter.KEYWORD_ONLY])


_RETURNS = {
    "similarity": "float: the cosine similarity (like gensim's KeyedVectors.similarity)",
    "similar": "list of (word, cosine) tuples, best first (like gensim's most_similar)",
    "analogy": "list of (word, score) tuples, best first (like gensim's most_similar); with batch=: a table",
}


def _returns(command):
    if command in _RETURNS:
        return _RETURNS[command]
    return ("tfx.Matrix (a labelled float32 numpy array) when the result is a matrix; a float when it is one "
            "number; else a table (pandas DataFrame when pandas is installed, else a list of dicts) or the "
            "JSON result as a dict")


def _docstring(command, spec):
    lines = [f"tfx {command} — {spec.get('description', '')}", "",
             f"Runs `tfx {command}` (see `tfx {command} --help`); keyword names are its flags with '-' "
             "as '_' (a trailing '_' for Python keywords: from_=...).", "",
             f"Returns: {_returns(command)}.", "", "Parameters", "----------"]
    for o in _options(spec):
        kind = "flag (True/False)" if o["type"] == "FLAG" else o["metavar"] or o["type"]
        if o["positional"]:
            kind = "positional" + (", several" if o["repeats"] else "")
        lines.append(f"{_py_name(o)} : {kind}   ({' '.join(o['flags']) or 'positional'})")
        help_text = o["help"] + (f" ({o['facts']})" if o["facts"] else "")
        lines += ["    " + w for w in _wrap(help_text, 88)]
    lines += ["stdin : str or bytes", "    Text fed to tfx's standard input (for batch=\"-\")."]
    if spec.get("subcommands"):
        lines += ["", "Subcommands: " + ", ".join(f"tfx.{command.replace(' ', '.').replace('-', '_')}."
                                                   f"{s.replace('-', '_')}" for s in spec["subcommands"])]
    if spec.get("examples"):
        lines += ["", "Command-line examples", "---------------------"] + spec["examples"].rstrip().splitlines()[1:]
    return "\n".join(lines)


def _wrap(text, width):
    import textwrap
    return textwrap.wrap(text, width) or [""]


def _check_flags(command, spec, flags):
    known = {_py_name(o) for o in _options(spec)} | {"stdin"}
    known |= {f[1:] for o in _options(spec) for f in o["flags"] if len(f) == 2}  # k= for -k
    for name in flags:
        if name not in known and name.rstrip("_").replace("_", "-") not in {o["name"] for o in _options(spec)}:
            import difflib
            guess = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f"; did you mean {guess[0]}=?" if guess else f" (see help(tfx.{command.replace(' ', '.')}))"
            if name in ("format", "o", "output", "png", "svg", "view"):
                hint = "; the helper chooses the output: use tfx.npy / tfx.json / tfx.table / tfx.show"
            raise TypeError(f"tfx.{command.replace(' ', '.').replace('-', '_')}() got an unexpected keyword "
                            f"'{name}'{hint}")


class Command:
    """A tfx command called by name when this tfx cannot describe its commands (an old binary):
    tfx.pe(len=50, dim=128), tfx.pe.sim(...)."""

    def __init__(self, *words):
        self.words = words
        self.command = " ".join(words)

    def __call__(self, *args, **flags):
        return _result(self.command, json(self, *args, **flags), flags)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return Command(*self.words, name.replace("_", "-"))

    def __repr__(self):
        return f"<tfx command '{self.command}'>"


def _command(*words):
    """The Python function for `tfx WORDS`: its signature (inspect.signature, tab completion) and
    docstring (help(), `?` in Jupyter) come from tfx's own command table, so they list every flag
    with its type, default and help, and the command's examples; subcommands are attributes."""
    command = " ".join(words)
    spec = commands().get(command)
    if spec is None:
        return Command(*words)

    def call(*args, **flags):
        _check_flags(command, spec, flags)
        return _result(command, json(words, *args, **flags), flags)

    call.__name__ = words[-1].replace("-", "_")
    call.__qualname__ = ".".join(w.replace("-", "_") for w in words)
    call.__module__ = __name__
    call.__doc__ = _docstring(command, spec)
    call.__signature__ = _signature(spec)
    call.words, call.command = words, command
    for sub in spec.get("subcommands", []):
        setattr(call, sub.replace("-", "_"), _command(*words, sub))
    return call


def train(model="tfx_train.safetensors", **flags):
    """Watch it learn: runs `tfx train` (flags as the command's, e.g. steps=600, no_pe=True,
    pairs="my.tsv", every=50) and returns (curve, model_path): the held-out curve — step, loss,
    learning_rate, held_out_exact (and alignment on the built-in corpus) — as a table (pandas
    DataFrame when installed, else a list of dicts) and the path of the model it wrote (with
    model_path minus .safetensors + .vocab.txt beside it), for tfx.translate(..., model=path)."""
    path = str(model)
    if not path.endswith(".safetensors"):
        raise ValueError("model: expected a file name ending in .safetensors, got %r" % path)
    flags.setdefault("no_progress", True)
    out, err = _call("train", (), flags, ["--format", "json", "-o", path])
    _pass_stderr(err)
    return _table(_json.loads(out)["data"]), path

_command_cache = {}


def __getattr__(name):  # tfx.pe, tfx.eval_analogies, and commands added to tfx later
    if re.fullmatch(r"[a-z][a-z0-9_]*", name):
        word = name.replace("_", "-")
        try:
            known = commands()
        except TfxError:
            known = {}
        if known and word not in known:
            raise AttributeError(f"module 'tfx' has no attribute '{name}' (tfx has no command '{word}')")
        if word not in _command_cache:
            _command_cache[word] = _command(word)
        return _command_cache[word]
    raise AttributeError(name)


def __dir__():
    try:
        names = [c.replace("-", "_") for c in commands() if " " not in c]
    except TfxError:
        names = []
    return sorted(set(globals()) | set(names))
