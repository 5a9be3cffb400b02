"""Executes a committed sample notebook afresh (ctest entries notebook_*, cmake/tests/python.cmake)
and fails on any error and on any output that differs from the committed one (the committed
notebooks carry their outputs, which are deterministic; regenerate them with
scripts/gen-notebooks.py after changing tfx).

    run_notebook.py GENERATOR NOTEBOOK        execute it as the generator does, compare outputs
    run_notebook.py --committed GENERATOR NB… check the committed notebooks' cells are what
                                              scripts/gen-notebooks.py writes

Prints "TFX-SKIP: <reason>" (ctest reports the entry as skipped) when jupyter-nbconvert,
ipykernel or numpy is missing. The checkout's python/tfx.py and the built tfx are used
(PYTHONPATH and TFX_BINARY are set by ctest); TFX_EMBEDDINGS is cleared so the built-in
embedding answers as the notebook expects.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from build_kind import sanitizer_build


def skip(reason):
    print(f"TFX-SKIP: {reason}")
    sys.exit(0)


def load_generator(path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("gen_notebooks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cells_only(nb):
    return [(c["cell_type"], "".join(c["source"])) for c in nb["cells"]]


def check_committed(generator, paths):
    gen = load_generator(generator)
    bad = []
    for lang, name in gen.NOTEBOOKS:
        for path in paths:
            if Path(path).name == name:
                committed = json.loads(Path(path).read_text(encoding="utf-8"))
                if cells_only(committed) != cells_only(gen.stripped(lang, name)):
                    bad.append(f"{path}: its cells differ from {generator}'s (edit the generator and rerun it)")
    bad += check_sizes(generator, paths)
    root = str(Path(generator).resolve().parent.parent)
    for path in paths:
        text = Path(path).read_text(encoding="utf-8")
        if root in text:
            bad.append(f"{path}: an output holds this checkout's absolute path {root} (another machine's "
                       "fresh run cannot match it; print paths relative to the notebook)")
    for line in bad:
        print(line, file=sys.stderr)
    print(f"{len(paths)} notebooks checked: {len(bad)} problems")
    return 1 if bad else 0


def check_sizes(generator, paths):
    """docs/python.md's table of the committed notebooks' sizes ("| samples/NAME | 0.6 MB |") holds
    for each notebook, to the 0.1 MB it is written in."""
    docs = Path(generator).resolve().parent.parent / "docs" / "python.md"
    stated = dict(re.findall(r"\|\s*\[?`?samples/([\w.]+\.ipynb)`?\]?(?:\([^)]*\))?\s*\|\s*([0-9.]+) MB", docs.read_text(encoding="utf-8")))
    bad = []
    for path in paths:
        name, size = Path(path).name, Path(path).stat().st_size / 1e6
        if name not in stated:
            bad.append(f"{docs}: no size stated for samples/{name} ({size:.2f} MB)")
        elif abs(float(stated[name]) - size) > 0.05 + 1e-9:
            bad.append(f"{docs} says samples/{name} is {stated[name]} MB; it is {size:.2f} MB")
    return bad


NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def same_text(a, b):
    """Equal, or equal but for numbers that differ at rounding level (|a − b| ≤ 1e-5, or relatively):
    the Release (GCC -O3) and sanitizer (clang -O1) builds round a few last digits differently."""
    if a == b:
        return True
    if NUMBER.sub("#", a) != NUMBER.sub("#", b):
        return False
    for x, y in zip(NUMBER.findall(a), NUMBER.findall(b)):
        fx, fy = float(x), float(y)
        if abs(fx - fy) > 1e-5 and abs(fx - fy) > 1e-5 * max(abs(fx), abs(fy)):
            return False
    return True


def png_pixels(b64):
    """(width, height, channels, rows of bytes) of a base64 PNG as tfx writes it (8-bit gray, RGB or
    RGBA, not interlaced), its filters undone; None for anything else."""
    import base64
    import struct
    import zlib
    data = base64.b64decode(b64)
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    pos, idat, head = 8, b"", None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if head is None or head[2] != 8 or head[6] != 0 or head[3] not in (0, 2, 6):
        return None
    w, h, ch = head[0], head[1], {0: 1, 2: 3, 6: 4}[head[3]]
    raw, stride, rows, prev = zlib.decompress(idat), w * ch, [], bytearray(w * ch)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b, c = prev[i], prev[i - ch] if i >= ch else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, ch, rows


def same_image(a, b):
    """Byte for byte, or the same size with at most 0.1 % of the pixels different: a bar's
    anti-aliased end moves by one shade when the Release and sanitizer builds round a probability's
    last bit differently."""
    if a == b:
        return True
    pa, pb = png_pixels(text_of(a)), png_pixels(text_of(b))
    if pa is None or pb is None or pa[:3] != pb[:3]:
        return False
    w, h, ch = pa[:3]
    differ = sum(1 for ra, rb in zip(pa[3], pb[3]) if ra != rb for x in range(w) if ra[x * ch:(x + 1) * ch] != rb[x * ch:(x + 1) * ch])
    return differ <= 0.001 * w * h


def text_of(value):
    return "".join(value) if isinstance(value, list) else str(value)


def same_outputs(old, new):
    """A code cell's outputs equal: text at rounding level (same_text), images byte for byte or all
    but a few pixels (same_image)."""
    if len(old) != len(new):
        return False
    for a, b in zip(old, new):
        if a.get("output_type") != b.get("output_type"):
            return False
        if "text" in a or "text" in b:
            if not same_text(text_of(a.get("text", "")), text_of(b.get("text", ""))):
                return False
        da, db = a.get("data", {}), b.get("data", {})
        if set(da) != set(db):
            return False
        image = any(kind.startswith("image/") for kind in da)
        for kind in da:
            if kind.startswith("image/"):
                if not same_image(da[kind], db[kind]):
                    return False
            elif image and kind == "text/plain":
                continue  # the figure's repr ("<tfx.Figure png, 97604 bytes>"): the image itself is compared
            elif not same_text(text_of(da[kind]), text_of(db[kind])):
                return False
    return True


def execute(generator, path):
    for module, package in (("nbclient", "jupyter-nbconvert"), ("ipykernel", "python3-ipykernel"),
                            ("numpy", "python3-numpy")):
        if subprocess.run(["/usr/bin/python3", "-c", f"import {module}"], capture_output=True).returncode != 0:
            skip(f"/usr/bin/python3 has no {module} (Debian: {package})")
    gen = load_generator(generator)
    name = Path(path).name
    lang = next(lang for lang, n in gen.NOTEBOOKS if n == name)
    committed = json.loads(Path(path).read_text(encoding="utf-8"))
    try:
        fresh = gen.execute(gen.stripped(lang, name), Path(path).resolve().parent)
    except Exception as e:  # nbclient's CellExecutionError names the cell and shows its traceback
        sys.stderr.write(f"{e}\n")
        print(f"FAILED: {path} did not execute cleanly")
        return 1
    cells = [c for c in fresh["cells"] if c["cell_type"] == "code"]
    errors = [o for c in cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    figures = sum(1 for c in cells for o in c.get("outputs", []) if "image/png" in o.get("data", {}))
    if errors or any(c.get("execution_count") is None for c in cells):
        print(f"FAILED: {path}: {len(errors)} cells raised, or a cell did not run", file=sys.stderr)
        return 1
    print(f"{path}: {len(cells)} code cells executed, {figures} figures, no errors")
    shared = Path(path).resolve().parent.parent.parent / "shared" / "data"
    differ = []
    old = [c for c in committed["cells"] if c["cell_type"] == "code"]
    # training (tfx.train, or the train command through show/table) follows its float rounding for
    # thousands of steps: the sanitizer build (clang -O1) ends elsewhere than the Release build the
    # notebooks are written with, so there a training cell is compared by its outputs' kinds and
    # text with the numbers masked
    sanitizer = sanitizer_build()
    for i, (a, b) in enumerate(zip(old, cells)):
        source = "".join(b["source"])
        if sanitizer and ("tfx.train(" in source or 'tfx.show("train"' in source or 'tfx.table("train"' in source):
            oa, ob = a.get("outputs", []), b.get("outputs", [])
            if [o.get("output_type") for o in oa] != [o.get("output_type") for o in ob] or \
                    [NUMBER.sub("#", text_of(o.get("text", ""))) for o in oa] != [NUMBER.sub("#", text_of(o.get("text", ""))) for o in ob]:
                differ.append(f"code cell {i} ({''.join(b['source']).splitlines()[0][:60]!r}), numbers masked")
            else:
                print(f"code cell {i}: a training cell under the sanitizer build, compared with its numbers masked")
            continue
        if not same_outputs(a.get("outputs", []), b.get("outputs", [])):
            differ.append(f"code cell {i} ({''.join(b['source']).splitlines()[0][:60]!r})")
    if len(old) != len(cells):
        differ.append(f"{len(old)} committed code cells, {len(cells)} now")
    if differ and not shared.is_dir():
        skip(f"{shared} is absent, so the real-GloVe cells cannot give the committed outputs "
             f"({len(differ)} cells differ)")
    for d in differ:
        print(f"FAILED: {path}: the output of {d} differs from a fresh run; "
              f"regenerate with /usr/bin/python3 {generator}", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    if sys.argv[1] == "--committed":
        sys.exit(check_committed(sys.argv[2], sys.argv[3:]))
    sys.exit(execute(sys.argv[1], sys.argv[2]))
