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
    tfx.tokenize("나는 학생 이다")            # a table -> pandas DataFrame (else a list of dicts)
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
``stdin="..."`` feeds text to the command (``tfx.analogy(queries="-", stdin="king man woman\\n")``).

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

__all__ = ["TfxError", "Figure", "Matrix", "Text", "Translation", "Trace", "AttentionView", "vector", "doesnt_match", "head_view", "model_view", "sample_model", "npy", "json", "table", "show", "run", "binary", "version", "commands",
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


def _shown_path(p, checkout):
    """P relative to the working directory when both lie in the same checkout (a notebook in
    samples/ gets ../tests/data/hf_models/NAME, the same on every machine, so the headers tfx prints
    name no one's home folder), else absolute."""
    if checkout is not None:
        try:
            Path.cwd().resolve().relative_to(checkout)
            return os.path.relpath(p, Path.cwd())
        except (ValueError, OSError):
            pass
    return str(p)


def sample_model(name="bert"):
    """The folder of a tiny sample checkpoint the notebooks use ("bert" or "gpt2": random weights,
    Hugging Face layout): tests/data/hf_models/NAME of the checkout this file sits in, else share/tfx/models/NAME
    under the prefix pip or cmake --install put it in. FileNotFoundError says where it looked."""
    here = Path(__file__).resolve().parent
    places = []
    if here.name == "python":
        places.append(here.parent / "tests" / "data" / "hf_models" / name)
    places += [up / "share" / "tfx" / "models" / name for up in list(here.parents)[:5]]
    places.append(Path(sys.prefix) / "share" / "tfx" / "models" / name)
    for p in places:
        if (p / "config.json").is_file():
            return _shown_path(p, here.parent if here.name == "python" else None)
    raise FileNotFoundError(f"no sample model {name!r}: looked in {', '.join(str(p) for p in places)} "
                            "(pip install the tfx checkout, or use a checkout)")


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


def _positional(args):
    """Positional arguments; a list or tuple of words is several words (tfx.analogy(["king", "man",
    "woman"]) is tfx.analogy("king", "man", "woman"))."""
    out = []
    for a in args:
        if isinstance(a, (list, tuple)) and not _nested(a):
            out += [_value(x) for x in a]
        else:
            out.append(_arg("", a))
    return out


def _argv(words, args, flags, extra=(), raw=False):
    """tfx WORDS --FLAGS… EXTRA… -- POSITIONAL…: the positional words after `--`, so a word that
    looks like a flag ("--output=victim.txt", "-o", "--help") reaches tfx as a word, never as an
    option. raw=True (tfx.run: "as given") keeps them where they are, flags and all."""
    positional = _positional(args)
    argv = list(words) + (positional if raw else [])
    for name, v in flags.items():
        if v is None or v is False:
            continue
        name = name.rstrip("_").replace("_", "-")
        if len(name) == 1 and not _long_one_letter(words, name):
            flag = "-" + name
            items = v if _nested(v) else [v]
            for item in items:
                value = True if item is True else _arg("", item)
                if value is True:
                    argv.append(flag)
                elif isinstance(value, str) and value.startswith("-"):
                    argv.append(flag + value)  # -k-3: a value that starts with '-' stays the value
                else:
                    argv += [flag, value]
            continue
        flag = "--" + name
        if v is True:
            argv.append(flag)
        elif _nested(v):
            argv += [f"{flag}={_value(item)}" for item in v]
        else:
            argv.append(_arg(flag + "=", v))
    argv += list(extra)
    if positional and not raw:
        argv += ["--"] + positional
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
    return _run(_argv(words, args, flags, extra), stdin)


def _spec(words):
    try:
        return commands().get(" ".join(words))
    except TfxError:
        return None


def _has_option(words, name):
    try:
        spec = commands().get(" ".join(words))
    except TfxError:
        return False
    return bool(spec) and any(o["name"] == name for o in spec.get("options", []))


def _short_traceback(fn):
    """Re-raises a TfxError from the public call with the frames inside this module cut off, so a
    notebook's traceback shows the user's line and tfx's message (IPython also hides this frame:
    __tracebackhide__)."""
    import functools

    @functools.wraps(fn)
    def public(*args, **kwargs):
        __tracebackhide__ = True  # noqa: F841 (IPython, pytest)
        try:
            return fn(*args, **kwargs)
        except TfxError as e:
            raise e.with_traceback(None) from None
    return public


# ---- one function per output kind ----

@_short_traceback
def run(command, *args, **flags):
    """Runs `tfx COMMAND ARGS --FLAGS` as given and returns stdout as bytes (errors raise TfxError)."""
    stdin = flags.pop("stdin", None)
    out, err = _run(_argv(_words(command), args, flags, raw=True), stdin)
    _pass_stderr(err)
    return out


@_short_traceback
def npy(command, *args, **flags):
    """The command's main matrix as a numpy array (tfx … --format npy, read from stdout)."""
    out, err = _call(command, args, flags, ["--format", "npy"])
    _pass_stderr(err)
    return np.load(io.BytesIO(out), allow_pickle=False)


@_short_traceback
def json(command, *args, **flags):
    """The whole result as a dict (tfx … --format json): params, data, rows/columns, matrices,
    tables, notes, summary — see docs/formats.md."""
    out, err = _call(command, args, flags, ["--format", "json"])
    _pass_stderr(err)
    return _json.loads(out)


@_short_traceback
def table(command, *args, **flags):
    """The table tfx prints in a terminal, as text."""
    out, err = _call(command, args, flags, ["--format", "table"])
    _pass_stderr(err)
    return Text(out.decode("utf-8"))


@_short_traceback
def show(command, *args, fmt="png", **flags):
    """The command's figure, shown inline when it is the last expression of a Jupyter cell
    (elsewhere in a cell: display(tfx.show(...))). PNG by default (compact in a notebook);
    fmt="svg" for a vector figure; fmt="auto" takes SVG when this tfx has --svg, else PNG.
    Returns a tfx.Figure (.save(path), ._repr_png_/_repr_svg_ for Jupyter)."""
    words = _words(command)
    if fmt not in ("auto", "png", "svg"):
        raise ValueError(f"fmt={fmt!r}: expected 'auto', 'png' or 'svg'")
    spec = _spec(words)
    if spec is not None and not any(o["name"] == "png" for o in spec.get("options", [])):
        drawing = sorted(c for c, sp in commands().items() if any(o["name"] == "png" for o in sp.get("options", [])))
        raise TfxError(f"tfx {' '.join(words)} draws no figure (it has no --png); use tfx.{'.'.join(words).replace('-', '_')}(…) "
                       f"for its numbers. Commands that draw: {', '.join(drawing)}", 2, [binary(), *words])
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
    """A matrix result: a float32 numpy array that keeps tfx's labels, per axis.

    ``.axes`` names every axis (``("layer", "head", "query", "key")`` for a model's attention,
    ``("query", "key")`` for one head; None for an axis tfx does not name) and ``.labels`` gives
    each axis's labels (tokens, words, steps; None when the axis is just 0, 1, 2 …). ``.rows`` /
    ``.cols`` are the labels of the last two axes (of axis 0 for a vector), ``.row_axis`` /
    ``.col_axis`` their names. ``.notes`` tfx's notes, ``.params`` the parameters used,
    ``.matrices`` the other named matrices of the result (attention's q, k, v, scores … with
    ``show="all"``), each a Matrix. ``.to_pandas()`` gives a labelled DataFrame (Series for a
    vector).

    Labels never lie: indexing moves them with the numbers (``w[::-1]``, ``w[[3, 2, 1, 0]]``,
    ``w[1:]``, ``w[w.sum(1) > 0]``), an integer index drops its axis, transposes (``w.T``,
    ``np.transpose``, ``np.moveaxis``, ``swapaxes``) swap labels and names, sorting drops the sorted
    axis's labels, a reduction drops the reduced axis, elementwise arithmetic keeps them when
    every labelled operand agrees, and any other numpy function returns plain numbers."""

    def __new__(cls, values, rows=None, cols=None, row_axis=None, col_axis=None, notes=(), params=None,
                labels=None, axes=None):
        obj = np.asarray(values, dtype=np.float32).view(cls)
        n = obj.ndim
        obj._labels = [None] * n
        obj._axes = [None] * n
        for i, lab in enumerate(labels or ()):
            obj._set_labels(i, lab)
        for i, name in enumerate(axes or ()):
            if i < n:
                obj._axes[i] = name
        if rows is not None:
            obj.rows = rows
        if cols is not None:
            obj.cols = cols
        if row_axis is not None:
            obj.row_axis = row_axis
        if col_axis is not None:
            obj.col_axis = col_axis
        obj.notes, obj.params, obj.matrices = list(notes), dict(params or {}), {}
        return obj

    def __array_finalize__(self, obj):
        # a view or copy of the same shape (w.copy(), w.astype, w * 2) keeps the labels; anything
        # whose shape changed starts unlabelled (indexing and transposes relabel it themselves)
        same = obj is not None and getattr(obj, "shape", None) == self.shape and hasattr(obj, "_labels")
        self._labels = list(obj._labels) if same else [None] * self.ndim
        self._axes = list(obj._axes) if same else [None] * self.ndim
        self.notes = list(getattr(obj, "notes", [])) if same else []
        self.params = dict(getattr(obj, "params", {})) if same else {}
        self.matrices = dict(getattr(obj, "matrices", {})) if same else {}

    def __reduce__(self):  # pickles (multiprocessing, joblib) as a plain array
        return np.asarray(self).__reduce__()

    # ---- labels per axis ----
    def _set_labels(self, axis, values):
        if values is None:
            self._labels[axis] = None
            return
        values = [str(v) for v in values]
        if len(values) != self.shape[axis]:
            raise ValueError(f"{len(values)} labels for axis {axis} of length {self.shape[axis]}")
        self._labels[axis] = values

    def _row_index(self):
        return self.ndim - 2 if self.ndim >= 2 else (0 if self.ndim == 1 else None)

    def _col_index(self):
        return self.ndim - 1 if self.ndim >= 2 else None

    def _get(self, which, axis):
        return None if axis is None else (self._labels if which == "labels" else self._axes)[axis]

    def _put(self, which, axis, value):
        if axis is None:
            if value is not None:
                raise ValueError(f"a {self.ndim}-D array has no such axis")
            return
        if which == "labels":
            self._set_labels(axis, value)
        else:
            self._axes[axis] = value

    rows = property(lambda self: self._get("labels", self._row_index()),
                    lambda self, v: self._put("labels", self._row_index(), v))
    cols = property(lambda self: self._get("labels", self._col_index()),
                    lambda self, v: self._put("labels", self._col_index(), v))
    row_axis = property(lambda self: self._get("axes", self._row_index()),
                        lambda self, v: self._put("axes", self._row_index(), v))
    col_axis = property(lambda self: self._get("axes", self._col_index()),
                        lambda self, v: self._put("axes", self._col_index(), v))

    @property
    def axes(self):
        """The name of every axis (None for an unnamed one)."""
        return tuple(self._axes)

    @property
    def labels(self):
        """The labels of every axis (a list of strings, or None)."""
        return tuple(None if lab is None else list(lab) for lab in self._labels)

    def _relabel(self, labels, axes):
        if labels is None or len(labels) != self.ndim:
            labels, axes = [None] * self.ndim, [None] * self.ndim
        self._labels, self._axes = list(labels), list(axes)
        return self

    # ---- operations that move labels ----
    def __getitem__(self, key):
        out = super().__getitem__(key)
        if not isinstance(out, Matrix):
            return out
        labels, axes = _index_labels(self, key)
        return out._relabel(labels, axes)

    def transpose(self, *order):
        if len(order) == 1 and (order[0] is None or isinstance(order[0], (tuple, list))):
            order = order[0]
        perm = list(range(self.ndim))[::-1] if not order else [int(a) % self.ndim for a in order]
        out = super().transpose(perm)
        return out._relabel([self._labels[p] for p in perm], [self._axes[p] for p in perm])

    @property
    def T(self):
        return self.transpose()

    def swapaxes(self, a, b):
        perm = list(range(self.ndim))
        a, b = a % self.ndim, b % self.ndim
        perm[a], perm[b] = perm[b], perm[a]
        return self.transpose(perm)

    def sort(self, axis=-1, kind=None, order=None):
        super().sort(axis=axis, kind=kind, order=order)
        self._labels[axis % self.ndim] = None  # each line sorted on its own: that axis's labels are gone

    def partition(self, kth, axis=-1, kind="introselect", order=None):
        super().partition(kth, axis=axis, kind=kind, order=order)
        self._labels[axis % self.ndim] = None

    def argsort(self, *args, **kwargs):
        return np.asarray(self).argsort(*args, **kwargs)

    def argpartition(self, *args, **kwargs):
        return np.asarray(self).argpartition(*args, **kwargs)

    def take(self, indices, axis=None, out=None, mode="raise"):
        if axis is None or out is not None or mode != "raise":
            return np.asarray(self).take(indices, axis=axis, out=out, mode=mode)
        key = [slice(None)] * self.ndim
        key[axis % self.ndim] = indices
        return self[tuple(key)]

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        plain = [np.asarray(x) if isinstance(x, Matrix) else x for x in inputs]
        if out is not None:
            kwargs["out"] = tuple(np.asarray(o) if isinstance(o, Matrix) else o for o in out)
        result = getattr(ufunc, method)(*plain, **kwargs)
        if out is not None:  # written in place: the out arrays keep their own labels
            return out[0] if len(out) == 1 else out
        if isinstance(result, tuple):
            return tuple(_wrap_ufunc(r, method, inputs, kwargs) for r in result)
        return _wrap_ufunc(result, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func in _LABEL_SAFE:
            return super().__array_function__(func, types, args, kwargs)
        return func(*_plain(args), **_plain(kwargs))  # anything else: plain numbers, no labels

    # ---- showing it ----
    def _header(self):
        names = ", ".join(a or "·" for a in self._axes)
        return f"tfx.Matrix {self.shape} {self.dtype}" + (f", axes ({names})" if any(self._axes) else "")

    def _labelled(self):
        return any(lab is not None for lab in self._labels)

    def __str__(self):  # print(m): numpy's numbers, with the labels when it has any
        return self.__repr__() if self._labelled() else str(np.asarray(self))

    def __repr__(self):
        a = np.asarray(self)
        if not self._labelled():
            return np.ndarray.__repr__(self)
        if self.ndim == 2 and (self.rows or self.cols):
            return self._header() + "\n" + _text_table(a, self.rows, self.cols, self.row_axis, self.col_axis)
        lines = [self._header(), np.array2string(a, precision=4, threshold=200)]
        for axis, lab in enumerate(self._labels):
            if lab is not None:
                lines.append(f"{self._axes[axis] or 'axis ' + str(axis)}: {_short_list(lab)}")
        return "\n".join(lines)

    def _repr_html_(self):
        return _html_matrix(self)

    def to_pandas(self):
        """The matrix as a pandas DataFrame with the row and column labels and axis names (a Series
        for a vector; a 3-D or larger result has no table form: index it first)."""
        import pandas as pd
        if self.ndim == 1:
            s = pd.Series(np.asarray(self), index=self.rows)
            s.index.name = self.row_axis
            return s
        if self.ndim != 2:
            raise ValueError(f"to_pandas(): a {self.ndim}-D result {self.axes} has no table form; index it first "
                             f"(e.g. m[0, 1] for layer 0, head 1)")
        frame = pd.DataFrame(np.asarray(self), index=self.rows, columns=self.cols)
        frame.index.name, frame.columns.name = self.row_axis, self.col_axis
        return frame


def _plain(x):
    if isinstance(x, Matrix):
        return np.asarray(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


# numpy functions that keep a Matrix (their implementations index, transpose, sort or reduce it,
# which move or drop the labels as they should); every other numpy function sees plain arrays
_LABEL_SAFE = {getattr(np, name) for name in (
    "transpose", "swapaxes", "moveaxis", "flip", "fliplr", "flipud", "rot90", "sort", "partition", "copy", "around",
    "round", "clip", "sum", "mean", "std", "var", "amax", "amin", "max", "min", "prod", "cumsum", "cumprod", "nansum",
    "nanmean", "nanmax", "nanmin") if hasattr(np, name)}  # (np.round_ is gone in numpy 2)


def _wrap_ufunc(result, method, inputs, kwargs):
    if not isinstance(result, np.ndarray) or result.ndim == 0:
        return result
    mats = [x for x in inputs if isinstance(x, Matrix)]
    out = result.view(Matrix)
    if method in ("__call__", "accumulate"):
        # elementwise: the labels hold when every Matrix operand has the result's shape and the
        # same labels (w * 2, np.exp(w), w - w.max(1, keepdims=True) keep them; w + w[::-1] does not)
        if mats and all(m.shape == result.shape for m in mats) and \
                all(m._labels == mats[0]._labels and m._axes == mats[0]._axes for m in mats):
            out._relabel(list(mats[0]._labels), list(mats[0]._axes))
            out.notes, out.params = list(mats[0].notes), dict(mats[0].params)
        elif mats and mats[0].shape == result.shape and all(
                m is mats[0] or m.ndim == 0 or all(lab is None for lab in m._labels) for m in mats):
            out._relabel(list(mats[0]._labels), list(mats[0]._axes))
    elif method == "reduce" and len(mats) == 1 and inputs[0] is mats[0]:
        m = mats[0]
        axis = kwargs.get("axis", 0)
        axes = tuple(range(m.ndim)) if axis is None else tuple(a % m.ndim for a in np.atleast_1d(axis))
        if kwargs.get("keepdims"):
            labels = [None if i in axes else m._labels[i] for i in range(m.ndim)]
            names = [None if i in axes else m._axes[i] for i in range(m.ndim)]
        else:
            labels = [m._labels[i] for i in range(m.ndim) if i not in axes]
            names = [m._axes[i] for i in range(m.ndim) if i not in axes]
        out._relabel(labels, names)
    return out


def _index_labels(m, key):
    """The labels and axis names of m[key]: (labels, names), or (None, None) when they cannot be
    followed (several advanced indices broadcast together, a multi-dimensional index)."""
    if not isinstance(key, tuple):
        key = (key,)
    def is_array(k):
        return isinstance(k, (list, np.ndarray)) and not isinstance(k, Matrix) or isinstance(k, Matrix)
    arrays = [k for k in key if is_array(k)]
    if len(arrays) > 1:
        return None, None
    def consumed(k):
        if k is None or k is Ellipsis:
            return 0
        if is_array(k):
            a = np.asarray(k)
            return a.ndim if a.dtype == bool else 1
        return 1
    used = sum(consumed(k) for k in key)
    labels, names, axis = [], [], 0
    for k in key:
        if k is None:
            labels.append(None)
            names.append(None)
        elif k is Ellipsis:
            for _ in range(m.ndim - used):
                labels.append(m._labels[axis])
                names.append(m._axes[axis])
                axis += 1
        elif isinstance(k, slice):
            lab = m._labels[axis]
            labels.append(None if lab is None else lab[k])
            names.append(m._axes[axis])
            axis += 1
        elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            axis += 1
        elif is_array(k):
            a = np.asarray(k)
            if a.ndim != 1 or not (a.dtype == bool or np.issubdtype(a.dtype, np.integer)) or (a.size == 0 and a.dtype != bool):
                return None, None
            lab = m._labels[axis]
            if lab is not None:
                lab = [lab[i] for i in np.flatnonzero(a)] if a.dtype == bool else [lab[int(i)] for i in a]
            labels.append(lab)
            names.append(m._axes[axis])
            axis += 1
        else:
            return None, None
    while axis < m.ndim:
        labels.append(m._labels[axis])
        names.append(m._axes[axis])
        axis += 1
    return labels, names


def _short_list(values, limit=12):
    if len(values) <= limit:
        return "[" + ", ".join(values) + "]"
    return "[" + ", ".join(values[:limit // 2]) + ", …, " + ", ".join(values[-limit // 2:]) + f"] ({len(values)})"


def _cell(x):
    return "nan" if not np.isfinite(x) else f"{x:.4g}"


def _text_table(a, rows, cols, row_axis, col_axis, max_rows=24, max_cols=12):
    r_idx = list(range(a.shape[0])) if a.shape[0] <= max_rows else \
        list(range(max_rows // 2)) + [None] + list(range(a.shape[0] - max_rows // 2, a.shape[0]))
    c_idx = list(range(a.shape[1])) if a.shape[1] <= max_cols else \
        list(range(max_cols // 2)) + [None] + list(range(a.shape[1] - max_cols // 2, a.shape[1]))
    corner = f"{row_axis or ''}\\{col_axis or ''}" if (row_axis or col_axis) else ""
    head = [corner] + ["…" if j is None else (cols[j] if cols else str(j)) for j in c_idx]
    body = [["…" if i is None else (rows[i] if rows else str(i))] +
            ["…" if (i is None or j is None) else _cell(a[i, j]) for j in c_idx] for i in r_idx]
    table = [head] + body
    widths = [max(_width(r[c]) for r in table) for c in range(len(head))]

    def pad(text, c):
        fill = " " * (widths[c] - _width(text))
        return text + fill if c == 0 else fill + text
    return "\n".join("  ".join(pad(r[c], c) for c in range(len(r))).rstrip() for r in table)


def _width(text):
    """Display width in a terminal: Hangul and CJK take two columns."""
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _is_weights(m):
    a = np.asarray(m)
    return a.size > 0 and bool(np.all(np.isfinite(a))) and float(a.min()) >= 0 and float(a.max()) <= 1 and \
        any(name in ("key", "source", "keys") for name in m._axes)


def _html_escape(s):
    import html
    return html.escape(str(s), quote=True)


def _html_table(a, rows, cols, row_axis, col_axis, weights, max_rows=40, max_cols=30):
    r_idx = list(range(min(a.shape[0], max_rows)))
    c_idx = list(range(min(a.shape[1], max_cols)))
    corner = f"{_html_escape(row_axis or '')} \\ {_html_escape(col_axis or '')}" if (row_axis or col_axis) else ""
    out = ['<table style="border-collapse:collapse;font:12px monospace">',
           f'<tr><th style="padding:2px 6px;text-align:left">{corner}</th>']
    out += [f'<th style="padding:2px 6px">{_html_escape(cols[j] if cols else j)}</th>' for j in c_idx]
    if len(c_idx) < a.shape[1]:
        out.append(f'<th>… {a.shape[1] - len(c_idx)} more</th>')
    out.append("</tr>")
    for i in r_idx:
        out.append(f'<tr><th style="padding:2px 6px;text-align:left">{_html_escape(rows[i] if rows else i)}</th>')
        for j in c_idx:
            v = float(a[i, j])
            style = "padding:2px 6px;text-align:right"
            if weights:  # white (0) to dark blue (1), white text on the dark half
                style += f";background:rgba(8,48,107,{v:.3f});color:{'#fff' if v > 0.5 else '#000'}"
            out.append(f'<td style="{style}">{_cell(v)}</td>')
        out.append("</tr>")
    if len(r_idx) < a.shape[0]:
        out.append(f'<tr><th>… {a.shape[0] - len(r_idx)} more rows</th></tr>')
    out.append("</table>")
    return "".join(out)


def _html_matrix(m, max_slices=8):
    a = np.asarray(m)
    weights = _is_weights(m)
    head = _html_escape(m._header()) + (" — weights, coloured 0 (white) … 1 (blue)" if weights else "")
    parts = [f'<div class="tfx-matrix"><div style="font:12px sans-serif;margin:2px 0">{head}</div>']
    if m.ndim == 0:
        parts.append(_html_escape(_cell(float(a))))
    elif m.ndim == 1:
        parts.append(_html_table(a[None, :], None, m.rows, None, m.row_axis, weights))
    elif m.ndim == 2:
        parts.append(_html_table(a, m.rows, m.cols, m.row_axis, m.col_axis, weights))
    else:
        lead = list(np.ndindex(*a.shape[:-2]))
        for idx in lead[:max_slices]:
            name = ", ".join(f"{m._axes[k] or 'axis ' + str(k)} {i}" for k, i in enumerate(idx))
            parts.append(f'<div style="font:12px sans-serif;margin:6px 0 2px">[{_html_escape(name)}]</div>')
            parts.append(_html_table(a[idx], m.rows, m.cols, m.row_axis, m.col_axis, weights))
        if len(lead) > max_slices:
            parts.append(f'<div style="font:12px sans-serif">… {len(lead) - max_slices} more slices not shown</div>')
    parts.append("</div>")
    return "".join(parts)


def _matrix(d):
    data = np.asarray(d["data"], dtype=np.float32)
    for shape in ((d.get("summary") or {}).get("shape"), d.get("shape")):
        if isinstance(shape, list) and len(shape) != data.ndim and int(np.prod(shape)) == data.size:
            data = data.reshape(shape)  # tfx's JSON flattens (layers, heads, T, T) to (layers·heads, T, T)
            break
    n = data.ndim
    names = [None] * n
    labels = [None] * n
    params = d.get("params") or {}
    if n >= 2:
        names[n - 2], names[n - 1] = d.get("row_axis"), d.get("col_axis")
        labels[n - 2] = _labels(d.get("rows"), data.shape[n - 2])
        labels[n - 1] = _labels(d.get("columns"), data.shape[n - 1])
        lead = [a for a in ("layer", "head") if params.get(a) == "all"]
        if len(lead) == n - 2:
            names[:n - 2] = lead
    elif n == 1:
        names[0] = d.get("row_axis") or d.get("col_axis")
        labels[0] = _labels(d.get("rows"), data.shape[0]) or _labels(d.get("columns"), data.shape[0])
    return Matrix(data, notes=d.get("notes", ()), params=params, labels=labels, axes=names)


def _labels(values, n):
    return [str(v) for v in values] if isinstance(values, list) and len(values) == n else None


_INDEX_COLUMNS = ("position", "step", "rank", "#")


def _table(records, columns=None):
    """A table: a pandas DataFrame when pandas is installed (columns in tfx's order, indexed by its
    position / step / rank column when it has one), else a list of dicts in tfx's column order."""
    if columns and records and all(set(columns) == set(r) for r in records):
        records = [{c: r[c] for c in columns} for r in records]
    try:
        import pandas as pd
    except ImportError:
        return records
    frame = pd.DataFrame.from_records(records, columns=columns if columns and records else None)
    for c in _INDEX_COLUMNS:
        if c in frame.columns and frame[c].is_unique:
            frame = frame.set_index(c)
            break
    return frame


def _matrices(d):
    out = {}
    for name, sub in (d.get("matrices") or {}).items():
        if isinstance(sub, dict) and _is_numeric_matrix(sub.get("data")):
            out[name] = m = _matrix(sub)
            if m.ndim == 3 and m._axes[0] is None and re.search(r"\.(self|cross)\.", name):
                m._axes[0] = "head"  # trace's per-head q, k, v, scores, weights
    return out


class Translation:
    """tfx.translate(text): the teaching translator's greedy translation.

    ``.translation`` the English sentence, ``.source`` the Korean tokens, ``.tokens`` the English
    ones, ``.steps`` the greedy steps (DataFrame indexed by step, the CLI's columns: token,
    probability, the runners-up), ``.cross_attention`` the decoder's cross-attention (a Matrix:
    rows = generated tokens, columns = source words), ``.notes``, ``.json`` the whole result."""

    def __init__(self, d):
        self.json = d
        summary = d.get("summary", {})
        self.translation = summary.get("translation", "")
        self.source = list(summary.get("source_tokens", []))
        self.tokens = list(summary.get("tokens", []))
        self.finished = summary.get("finished")
        self.steps = _table(d.get("data", []), d.get("columns"))
        self.matrices = _matrices(d)
        self.cross_attention = self.matrices.get("cross_attention")
        self.notes = list(d.get("notes", []))

    def __str__(self):
        return self.translation

    def __repr__(self):
        return f"<tfx.Translation {' '.join(self.source)} → {self.translation!r}: .steps, .cross_attention>"

    def _repr_html_(self):
        import html
        parts = [f"<div><b>{html.escape(' '.join(self.source))}</b> → <b>{html.escape(self.translation)}</b></div>"]
        steps = self.steps
        parts.append(steps.to_html() if hasattr(steps, "to_html") else html.escape(str(steps)))
        if self.cross_attention is not None:
            parts.append(self.cross_attention._repr_html_())
        return "".join(parts)


class Trace:
    """tfx.trace(text): the whole Transformer step by step on the teaching translator.

    ``.steps`` the table of steps (DataFrame indexed by #: part, step, shape, name),
    ``.matrices`` every step's matrix by its name (``trace["enc1.self.weights"]``: a Matrix, heads
    first), ``for step in trace``: (number, part, what, shape, name, matrix) per step,
    ``.translation``, ``.next_token``, ``.next_probability``, ``.json`` the whole result."""

    def __init__(self, d):
        self.json = d
        summary = d.get("summary", {})
        self.translation = summary.get("translation")
        self.next_token = summary.get("next_token")
        self.next_probability = summary.get("next_probability")
        self.records = list(d.get("data", []))
        self.steps = _table(self.records, d.get("columns"))
        self.matrices = _matrices(d)
        self.notes = list(d.get("notes", []))

    def __getitem__(self, name):
        return self.matrices[name]

    def __iter__(self):
        import collections
        Step = collections.namedtuple("Step", "number part what shape name matrix")
        for r in self.records:
            yield Step(r.get("#"), r.get("part"), r.get("step"), r.get("shape"), r.get("name"),
                       self.matrices.get(r.get("name")))

    def __len__(self):
        return len(self.records)

    def __repr__(self):
        return (f"<tfx.Trace {len(self.records)} steps, {len(self.matrices)} matrices; next token "
                f"{self.next_token!r} ({self.next_probability}): .steps, trace[name]>")

    def _repr_html_(self):
        return self.steps.to_html() if hasattr(self.steps, "to_html") else None


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
    if command == "translate" and isinstance(data, list) and "translation" in d.get("summary", {}):
        return Translation(d)
    if command == "trace" and isinstance(data, list) and "matrices" in d:
        return Trace(d)
    if command == "similarity" and "cosine" in d.get("summary", {}):
        return float(d["summary"]["cosine"])  # like gensim's similarity()
    if data is None and "value" in d.get("summary", {}):
        return float(d["summary"]["value"])  # tfx.pe(dim=4, pos=1, i=2) → 0.00999983
    if _is_numeric_matrix(data):
        m = _matrix(d)
        m.matrices.update(_matrices(d))
        return m
    if command in ("similar", "analogy") and isinstance(data, list) and data and isinstance(data[0], dict) \
            and "word" in data[0] and not flags.get("queries"):
        return _ranking(data)
    if isinstance(data, list) and data and all(isinstance(r, dict) for r in data):
        return _table(data, d.get("columns"))
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
    if option.get("repeats") and text.startswith("[") and text.endswith("]"):
        try:
            return _json.loads(text)  # lr's warmup: [4000], not '[4000]'
        except ValueError:
            return [x.strip() for x in text[1:-1].split(",") if x.strip()]
    try:
        if kind in ("INT", "UINT"):
            return int(text)
        if kind == "FLOAT":
            return float(text)
    except ValueError:
        pass
    return text


def _short_name(option):
    """k for an option spelt -k/--top (analogy, similar: tfx.similar("king", k=3)); None otherwise."""
    short = [f[1:] for f in option["flags"] if len(f) == 2 and f[0] == "-" and f[1].isalpha()]
    return short[0] if short and option["name"] != "help" else None


def _options(spec):
    return [o for o in spec.get("options", []) if o["name"] not in _HIDDEN]


def _signature(spec):
    import inspect
    params, seen = [], set()
    for o in _options(spec):
        if o["positional"]:
            several = o["repeats"] or o["name"] == "words"  # analogy's A B C, similarity's W1 W2
            kind = inspect.Parameter.VAR_POSITIONAL if several else inspect.Parameter.POSITIONAL_ONLY
            if kind == inspect.Parameter.VAR_POSITIONAL:
                params.append(inspect.Parameter(_py_name(o), kind))
            else:
                default = inspect.Parameter.empty if o["required"] else None
                params.append(inspect.Parameter(_py_name(o), kind, default=default))
    params.sort(key=lambda p: p.kind)
    if sum(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params) > 1:
        params = [p for p in params if p.kind != inspect.Parameter.VAR_POSITIONAL] + \
            [next(p for p in params if p.kind == inspect.Parameter.VAR_POSITIONAL)]
        params.sort(key=lambda p: p.kind)
    for o in _options(spec):
        name = _short_name(o) or _py_name(o)
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
    "analogy": "list of (word, score) tuples, best first (like gensim's most_similar); with queries=: a table",
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
    lines += ["stdin : str or bytes", "    Text fed to tfx's standard input (for queries=\"-\")."]
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
    known = {_py_name(o) for o in _options(spec)} | {"stdin"} | set(_GENSIM.get(command, ()))
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


# gensim's keywords, accepted beside tfx's own flags (KeyedVectors.most_similar(positive, negative, topn))
_GENSIM = {"similar": ("positive", "topn"), "analogy": ("positive", "negative", "topn")}


def _gensim_arguments(command, args, flags):
    """similar(positive=["king", "woman"], negative=["man"], topn=5) → tfx similar king woman
    --negative man -k 5; analogy(positive=[A, C], negative=[B]) → tfx analogy A B C (gensim's order)."""
    if command not in _GENSIM:
        return args, flags
    flags = dict(flags)
    topn = flags.pop("topn", None)
    if topn is not None:
        if flags.get("k") is not None or flags.get("top") is not None:
            raise TypeError(f"tfx.{command}(): give topn= or k=, not both")
        flags["k"] = topn
    positive = flags.pop("positive", None)
    positive = [positive] if isinstance(positive, str) else list(positive or [])
    if command == "similar":
        return tuple(positive) + tuple(args), flags
    negative = flags.get("negative") if command == "analogy" else None
    if positive or negative is not None:
        flags.pop("negative", None)
        negative = [negative] if isinstance(negative, str) else list(negative or [])
        if args or len(positive) != 2 or len(negative) != 1:
            raise TypeError("tfx.analogy(positive=[A, C], negative=[B]) takes two positive words and one negative "
                            "(A − B + C); for other sums use tfx.similar(positive=[…], negative=[…])")
        return (positive[0], negative[0], positive[1]), flags
    return args, flags


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
        __tracebackhide__ = True  # noqa: F841
        _check_flags(command, spec, flags)
        args, flags = _gensim_arguments(command, args, flags)
        try:
            return _result(command, json(words, *args, **flags), flags)
        except TfxError as e:  # the user's line and tfx's message, not the frames in here
            raise e.with_traceback(None) from None

    call.__name__ = words[-1].replace("-", "_")
    call.__qualname__ = ".".join(w.replace("-", "_") for w in words)
    call.__module__ = __name__
    call.__doc__ = _docstring(command, spec)
    call.__signature__ = _signature(spec)
    if command in _GENSIM:
        import inspect
        sig = call.__signature__
        extra = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=None) for n in _GENSIM[command]]
        params = list(sig.parameters.values())
        call.__signature__ = sig.replace(parameters=params[:-1] + extra + params[-1:])
        call.__doc__ += ("\n\ngensim's spelling works too: positive=[…] (the words to add), negative=[…] "
                         "(to subtract), topn=N (= k=N); a list of words counts as several words.")
    if command == "train":  # returns (curve, model_path): _train, with the command's flags and help
        import inspect

        def train(model=None, **flags):
            __tracebackhide__ = True  # noqa: F841
            _check_flags(command, spec, flags)
            try:
                return _train(model, **flags)
            except TfxError as e:
                raise e.with_traceback(None) from None

        train.__module__ = __name__
        train.__doc__ = _train.__doc__ + "\n\n" + call.__doc__
        params = list(call.__signature__.parameters.values())
        model = inspect.Parameter("model", inspect.Parameter.KEYWORD_ONLY, default=None)
        at = len(params) - 1 if params and params[-1].kind == inspect.Parameter.VAR_KEYWORD else len(params)
        train.__signature__ = call.__signature__.replace(parameters=params[:at] + [model] + params[at:])
        call = train
    call.words, call.command = words, command
    for sub in spec.get("subcommands", []):
        setattr(call, sub.replace("-", "_"), _command(*words, sub))
    return call


def _train(model=None, **flags):
    """Watch it learn: runs `tfx train` (flags as the command's, e.g. steps=600, no_pe=True,
    pairs="my.tsv", every=50) and returns (curve, model_path): the held-out curve — step, loss,
    learning_rate, held_out_exact (and alignment on the built-in corpus) — as a table (pandas
    DataFrame when installed, else a list of dicts), and the path of the model it wrote when
    model="my.safetensors" asks for one (with my.vocab.txt beside it; for tfx.translate(...,
    model=path)), else None: without model= nothing is written. While it trains, one progress line
    (step, loss, held-out accuracy every `every` steps) updates in place in a notebook, or goes to
    stderr elsewhere; no_progress=True silences it.
    gif="learn.gif" (or gif=True: train_watch.gif) with watch="그녀는 커피를 마셨다" and frames=N
    also writes the animation of that sentence's cross-attention and the embeddings."""
    path = None if model is None else str(model)
    if path is not None and not path.endswith(".safetensors"):
        raise ValueError("model: expected a file name ending in .safetensors, got %r" % path)
    quiet = bool(flags.pop("no_progress", False))
    extra = ["--format", "json", "--no-progress"] if quiet else ["--format", "json"]
    if path is not None:
        extra += ["-o", path]
    out = _call_streaming("train", (), flags, extra, None if quiet else _progress_line())
    return _table(_json.loads(out)["data"]), path


class _progress_line:
    """One line that tfx's progress lines replace as they come: an updating display in a notebook
    (IPython), else the lines themselves on stderr. finish() leaves the last one shown without its
    last field (the speed, tokens/s, which differs from run to run), so a notebook's saved output
    stays the same."""

    def __init__(self):
        self.handle = None
        self.last = None
        try:
            from IPython import get_ipython
            shell = get_ipython()
            if shell is not None and getattr(shell, "kernel", None) is not None:
                from IPython.display import display
                self.handle = display(_Text(""), display_id=True)
        except Exception:  # no IPython, or no display: plain stderr lines
            self.handle = None

    def finish(self):
        if self.handle is not None and self.last is not None:
            self.handle.update(_Text(self.last.rsplit(", ", 1)[0]))

    def __call__(self, line):
        self.last = line
        if self.handle is not None:
            self.handle.update(_Text(line))
        else:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()


class _Text:
    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text

    def _repr_pretty_(self, p, cycle):
        p.text(self.text)


def _call_streaming(command, args, flags, extra, on_line):
    """_call for a long command: tfx's stderr is read line by line as it runs (progress lines go to
    on_line, anything else is passed through); returns stdout, raises TfxError on failure."""
    bad = _OUTPUT_FLAGS.intersection(flags)
    if bad:
        raise TypeError(f"{sorted(bad)[0]}=: the helper chooses the output; use tfx.npy / tfx.json / tfx.table / tfx.show")
    words = _words(command)
    if LANG and "lang" not in flags and _has_option(words, "lang"):
        flags["lang"] = LANG
    cmd = [binary()] + [a for a in _argv(words, args, flags) + extra]
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise TfxError(f"cannot run {cmd[0]}: {e.strerror} (set TFX_BINARY or tfx.BINARY)", 1, cmd) from None
    chunks = []
    reader = threading.Thread(target=lambda: chunks.append(proc.stdout.read()), daemon=True)
    reader.start()
    err = []
    for raw in proc.stderr:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        err.append(line)
        if on_line is not None and not line.startswith("tfx: "):
            on_line(line)
        else:
            sys.stderr.write(line + "\n")
    proc.wait()
    reader.join()
    proc.stdout.close()
    proc.stderr.close()
    if on_line is not None and hasattr(on_line, "finish"):
        on_line.finish()
    if proc.returncode != 0:
        lines = [ln for ln in err if ln.startswith("tfx: error: ")]
        message = lines[-1][len("tfx: error: "):] if lines else ("\n".join(err).strip() or f"tfx exited with status {proc.returncode}")
        raise TfxError(message, proc.returncode, cmd, "\n".join(err))
    return b"".join(chunks)


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


# ---- gensim's KeyedVectors habits, on tfx's embeddings ----

def _word_vectors(flags):
    """The flags for a word-vector lookup: the table the explorers (similar, analogy) use — the
    built-in named-dims embedding, or embeddings= / $TFX_EMBEDDINGS — not tfx lookup's default (the
    teaching translator's table, whose ids tfx tokenize prints), unless table= says otherwise."""
    if any(k in flags for k in ("embeddings", "table", "translator")) or os.environ.get("TFX_EMBEDDINGS"):
        return flags
    return dict(flags, table="named-dims")


@_short_traceback
def vector(word, **flags):
    """The word's vector, shape (d,) like gensim's kv["king"] / get_vector("king") (tfx lookup --words
    WORD; embeddings=, limit=, ignore_case= … as for tfx.lookup). A labelled tfx.Matrix: the built-in
    embedding names its dimensions."""
    if not isinstance(word, str) or not word or any(c.isspace() or c == "," for c in word):
        raise ValueError(f"tfx.vector({word!r}): one word (for several, tfx.lookup(words=[…]))")
    m = _command("lookup")(words=word, **_word_vectors(flags))
    return m[0] if m.ndim == 2 else m.reshape(-1)


@_short_traceback
def doesnt_match(words, **flags):
    """The word that fits least with the others, as gensim's doesnt_match: the word whose unit vector
    has the smallest dot product with the normalised mean of all the unit vectors (vectors from tfx
    lookup; embeddings= … as for tfx.lookup)."""
    words = words.split() if isinstance(words, str) else [str(w) for w in words]
    if len(words) < 2:
        raise ValueError("tfx.doesnt_match(words): give at least two words")
    m = np.asarray(_command("lookup")(words=words, **_word_vectors(flags)), dtype=np.float32).reshape(len(words), -1)
    unit = m / np.linalg.norm(m, axis=1, keepdims=True)
    mean = unit.mean(axis=0)
    mean /= np.linalg.norm(mean)
    dists = unit @ mean
    return sorted(zip(dists.tolist(), words))[0][1]


# ---- BertViz's head view and model view, inline and offline ----
#
# The page is tfx's own --html page (src/figure/attention_html.cpp: the same script and style), with
# the weights and tokens of the call put in its data block, shown in an <iframe srcdoc>: every view
# has its own document, so its element ids, style and script cannot collide with another view's or
# the notebook's, and nothing is fetched from the network.

_page_template = {}
_view_count = [0]


def _template():
    """tfx's --html page for a tiny input, whose data block the views replace (cached per binary)."""
    b = binary()
    if b not in _page_template:
        out, _ = _run(["attention", "--sentence", "I love playing football", "--html", "-"])
        page = out.decode("utf-8")
        if 'id="tfx-data">' not in page:
            raise TfxError("this tfx's --html page has no data block (tfx too old for tfx.head_view)", 1, [b])
        _page_template[b] = page
    return _page_template[b]


def _script_safe(obj):
    text = _json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _view_weights(attention, tokens, queries, keys, part):
    """(weights (L, H, T, S) float64, queries, keys, layer names, head names, what) from a tfx result
    or an array."""
    what = "attention"
    if isinstance(attention, Trace):
        parts = {"encoder": ("enc{}.self.weights", "encoder self-attention"),
                 "decoder": ("dec{}.self.weights", "decoder masked self-attention"),
                 "cross": ("dec{}.cross.weights", "decoder cross-attention (queries: English so far, keys: Korean source)")}
        if part not in parts:
            raise ValueError(f"part={part!r}: a trace has 'encoder', 'decoder' and 'cross' attention")
        pattern, what = parts[part]
        layers = []
        while pattern.format(len(layers) + 1) in attention.matrices:
            layers.append(attention.matrices[pattern.format(len(layers) + 1)])
        first = layers[0]
        return (np.stack([np.asarray(m, dtype=np.float64) for m in layers]), queries or first.rows, keys or first.cols,
                [f"layer {i + 1}" for i in range(len(layers))], None, what)
    if isinstance(attention, Translation):
        attention, what = attention.cross_attention, "cross-attention (mean over the heads of the last decoder layer)"
    m = attention
    w = np.asarray(m, dtype=np.float64)
    if w.ndim < 2 or w.ndim > 4:
        raise ValueError(f"attention of shape {w.shape}: expected (T, S), (heads, T, S) or (layers, heads, T, S)")
    w = w.reshape((1,) * (4 - w.ndim) + w.shape)
    rows = getattr(m, "rows", None) if isinstance(m, Matrix) else None
    cols = getattr(m, "cols", None) if isinstance(m, Matrix) else None
    queries = list(queries or tokens or rows or range(w.shape[2]))
    keys = list(keys or tokens or cols or range(w.shape[3]))
    return w, queries, keys, None, None, what


def _view_page(attention, tokens, queries, keys, part, contrast, layer, head, title, hide):
    w, queries, keys, layer_names, head_names, what = _view_weights(attention, tokens, queries, keys, part)
    L, H, T, S = w.shape
    queries, keys = [str(q) for q in queries], [str(k) for k in keys]
    if len(queries) != T or len(keys) != S:
        raise ValueError(f"{len(queries)} query and {len(keys)} key tokens for weights of {T} queries × {S} keys")
    if not np.all(np.isfinite(w)) or w.min() < 0:
        raise ValueError("attention weights must be finite and ≥ 0")
    if L * H * T * S > (1 << 24):
        raise ValueError(f"{L}×{H}×{T}×{S} weights are too many for one view; pick layers or heads first")
    if contrast not in ("fixed", "head"):
        raise ValueError(f"contrast={contrast!r}: 'fixed' (0 … 1, the weights as they are) or 'head' (each head ÷ its maximum)")
    if contrast == "head":  # BertViz-like per-head contrast: each (layer, head) divided by its own maximum
        peak = w.max(axis=(2, 3), keepdims=True)
        w = np.divide(w, peak, out=np.zeros_like(w), where=peak > 0)
        scale = "Scale: per-head contrast — each head's weights divided by that head's maximum (lines, thumbnails and the numbers on hover are w ÷ max)."
    else:
        scale = "Scale: fixed 0 … 1 — line opacity and thumbnail colour are the attention weights themselves."
    if w.max() > 1 + 1e-6:
        raise ValueError("attention weights above 1: pass softmax weights (or contrast='head' to scale each head)")
    data = {"queries": queries, "keys": keys,
            "layers": layer_names or [f"layer {i}" for i in range(L)], "heads": head_names or [str(h) for h in range(H)],
            "layer": int(layer) if layer is not None and 0 <= int(layer) < L else 0,
            "head": int(head) if head is not None and 0 <= int(head) < H else None,
            "query_side": "query (attends)", "key_side": "key (attended to)",
            "w": [[[round(float(x), 4) for x in w[l, h].reshape(-1)] for h in range(H)] for l in range(L)]}
    import html
    page = _template()
    a = page.index('id="tfx-data">') + len('id="tfx-data">')
    b = page.index("</script>", a)
    page = page[:a] + _script_safe(data) + page[b:]
    heading = title or f"{what}: {L} layer{'s' * (L != 1)} × {H} head{'s' * (H != 1)}, {T} × {S} tokens"
    page = re.sub(r"<h1>.*?</h1>", lambda _: f"<h1>{html.escape(heading)}</h1>", page, count=1, flags=re.S)
    page = re.sub(r'<p class="sub">.*?</p>\n?', "", page, count=1, flags=re.S)
    page = page.replace("</h1>\n", f'</h1>\n<p class="sub" id="tfx-scale">{html.escape(scale)}</p>\n', 1)
    page = re.sub(r"<footer>.*?</footer>", "<footer>made by tfx.head_view (python/tfx.py)</footer>", page, count=1, flags=re.S)
    extra = "body{margin:.4em .6em;max-width:none}" + (f"#{hide}{{display:none}}" if hide else "")
    page = page.replace("</head>", f"<style>{extra}</style>\n</head>", 1)
    height = 130 + 22 * (len(heading) // 70) + (0 if hide == "headview" else 230 + 24 * max(T, S)) + \
        (0 if hide == "modelview" else 150 + 84 * L)
    return page, heading, scale, height


class AttentionView:
    """An inline head view / model view (tfx.head_view, tfx.model_view): Jupyter, nbconvert's HTML
    and VS Code draw it from ``_repr_html_`` (an <iframe srcdoc> holding the whole page, with its
    own element ids, style and script; no network). ``.html`` is the page, ``.save(path)`` writes
    it; ``.scale`` says which scale is shown."""

    def __init__(self, page, title, scale, height):
        import hashlib
        _view_count[0] += 1
        self.html, self.title, self.scale, self.height = page, title, scale, height
        self.id = f"tfx-view-{_view_count[0]}-{hashlib.sha1(page.encode()).hexdigest()[:8]}"

    def _repr_html_(self):
        import html
        return (f'<div class="tfx-view" id="{self.id}">'
                f'<iframe id="{self.id}-frame" title="{html.escape(self.title)}" sandbox="allow-scripts" '
                f'style="width:100%;max-width:1000px;height:{self.height}px;border:1px solid #d8d8de;border-radius:4px" '
                f'srcdoc="{html.escape(self.html, quote=True)}"></iframe></div>')

    def save(self, path):
        Path(path).write_text(self.html, encoding="utf-8")
        return path

    def __repr__(self):
        return f"<tfx.AttentionView {self.title!r}; {self.scale}>"


def head_view(attention, tokens=None, *, queries=None, keys=None, part="encoder", contrast="fixed", layer=None,
              head=None, title=None):
    """BertViz's head view, inline and offline: lines from each query token (left) to each key token
    (right), opacity = weight, colour = head; hover a token, pick the layer and heads.

    attention: a tfx result (tfx.model.attention(...), tfx.attention(...), tfx.translate(...): its
    cross-attention, tfx.trace(...): part="encoder" / "decoder" / "cross") or any array of weights
    (T, S), (heads, T, S) or (layers, heads, T, S) — with tokens=[…] (or queries=, keys= when they
    differ), like BertViz's head_view(attention, tokens). contrast="head" divides each head by its
    maximum (near-uniform heads stay visible); the view says which scale it shows."""
    page, heading, scale, height = _view_page(attention, tokens, queries, keys, part, contrast, layer, head, title, "modelview")
    return AttentionView(page, heading, scale, height)


def model_view(attention, tokens=None, *, queries=None, keys=None, part="encoder", contrast="fixed", title=None):
    """BertViz's model view, inline and offline: every layer × head as a small heatmap (click one to
    open it in the head view above). Arguments as tfx.head_view."""
    page, heading, scale, height = _view_page(attention, tokens, queries, keys, part, contrast, None, None, title, None)
    return AttentionView(page, heading, scale, height)
