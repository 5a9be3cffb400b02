"""tfx from Python: one call per tfx command, for lecture notebooks.

The helper runs the ``tfx`` binary (so it can never disagree with the command line) and turns
its output into Python values. Standard library and numpy only.

    import tfx
    pe = tfx.pe(len=50, dim=128)              # numpy array (50, 128), read as .npy from stdout
    tfx.pe(dim=4, pos=1, i=2)["summary"]      # a dict when the result is not a matrix
    tfx.pe.sim(len=50, dim=128)               # subcommands are attributes ("tfx pe sim")
    tfx.show("pe sim", len=50, dim=128)       # the figure, shown inline in Jupyter
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

__all__ = ["TfxError", "Figure", "Text", "npy", "json", "table", "show", "run", "binary", "version",
           "pe", "rope", "tokenize", "analogy", "embeddings", "similar", "similarity", "lookup", "direction",
           "project", "eval_analogies", "eval_similarity", "attention", "encoder", "decoder", "complexity",
           "patches", "layernorm", "lr"]

BINARY = None  # set to a path to pick the tfx binary explicitly


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
    if isinstance(command, Command):
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
    return _run(_argv(words, args, flags) + extra, stdin)


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


def show(command, *args, fmt="auto", **flags):
    """The command's figure, shown inline when it is the last expression of a Jupyter cell
    (elsewhere in a cell: display(tfx.show(...))). fmt="auto" takes SVG when this tfx has --svg
    (else, or when that fails, PNG); "png" or "svg" insists. Returns a tfx.Figure."""
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


# ---- tfx.pe(...), tfx.pe.sim(...), …: the commands by name ----

class Command:
    """A tfx command. Calling it returns the main matrix as a numpy array when the result has
    one, else the JSON result as a dict. Subcommands are attributes: tfx.rope.relative."""

    def __init__(self, *words):
        self.words = words

    def __call__(self, *args, **flags):
        try:
            return npy(self, *args, **flags)
        except TfxError:  # no numeric matrix, or a real error, which the JSON run raises the same way
            return json(self, *args, **flags)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return Command(*self.words, name.replace("_", "-"))

    def __repr__(self):
        return f"<tfx command '{' '.join(self.words)}'>"


pe = Command("pe")
rope = Command("rope")
tokenize = Command("tokenize")
analogy = Command("analogy")
embeddings = Command("embeddings")
similar = Command("similar")
similarity = Command("similarity")
lookup = Command("lookup")
direction = Command("direction")
project = Command("project")
eval_analogies = Command("eval-analogies")
eval_similarity = Command("eval-similarity")
attention = Command("attention")
encoder = Command("encoder")
decoder = Command("decoder")
complexity = Command("complexity")
patches = Command("patches")
layernorm = Command("layernorm")
lr = Command("lr")


def __getattr__(name):  # commands added to tfx later: tfx.new_command(...)
    if re.fullmatch(r"[a-z][a-z0-9_]*", name):
        return Command(name.replace("_", "-"))
    raise AttributeError(name)
