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
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


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
                if cells_only(committed) != cells_only(gen.stripped(lang)):
                    bad.append(f"{path}: its cells differ from {generator}'s (edit the generator and rerun it)")
    for line in bad:
        print(line, file=sys.stderr)
    print(f"{len(paths)} notebooks checked: {len(bad)} problems")
    return 1 if bad else 0


def outputs_of(cell):
    """A code cell's outputs as comparable text (images compared by their bytes)."""
    out = []
    for o in cell.get("outputs", []):
        o = dict(o)
        o.pop("execution_count", None)
        out.append(json.dumps(o, sort_keys=True, ensure_ascii=False))
    return out


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
        fresh = gen.execute(gen.stripped(lang), Path(path).resolve().parent)
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
    for i, (a, b) in enumerate(zip(old, cells)):
        if outputs_of(a) != outputs_of(b):
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
