"""Executes a sample notebook with `jupyter nbconvert --to notebook --execute` into a temporary
directory and fails on any error (ctest entries notebook_*, cmake/tests/python.cmake).

    run_notebook.py NOTEBOOK                  execute it (stderr shows the failing cell)
    run_notebook.py --committed GENERATOR NB… check the committed notebooks carry no outputs and
                                              are what scripts/gen-notebooks.py writes

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


def check_committed(generator, paths):
    bad = []
    with tempfile.TemporaryDirectory(prefix="tfx-notebooks-") as out:
        subprocess.run([sys.executable, generator, out], check=True)
        for path in paths:
            text = Path(path).read_text(encoding="utf-8")
            if text != (Path(out) / Path(path).name).read_text(encoding="utf-8"):
                bad.append(f"{path} differs from what {generator} writes (edit the generator and rerun it)")
            nb = json.loads(text)
            for i, cell in enumerate(nb["cells"]):
                if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count") is not None):
                    bad.append(f"{path}: cell {i} has outputs (strip them: jupyter nbconvert --clear-output --inplace)")
    for line in bad:
        print(line, file=sys.stderr)
    print(f"{len(paths)} notebooks checked: {len(bad)} problems")
    return 1 if bad else 0


def execute(path):
    jupyter = "/usr/bin/jupyter" if Path("/usr/bin/jupyter").exists() else shutil.which("jupyter")
    if not jupyter:
        skip("jupyter is not installed (Debian: jupyter-nbconvert python3-ipykernel; ./setup.sh test installs them)")
    probe = subprocess.run([jupyter, "nbconvert", "--version"], capture_output=True)
    if probe.returncode != 0:
        skip("jupyter nbconvert is not installed (Debian: jupyter-nbconvert)")
    for module, package in (("ipykernel", "python3-ipykernel"), ("numpy", "python3-numpy")):
        if subprocess.run(["/usr/bin/python3", "-c", f"import {module}"], capture_output=True).returncode != 0:
            skip(f"/usr/bin/python3 has no {module} (Debian: {package})")
    env = dict(os.environ)
    env.pop("TFX_EMBEDDINGS", None)
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # ipykernel's debugger warning on every start
    with tempfile.TemporaryDirectory(prefix="tfx-notebook-") as out:
        cmd = [jupyter, "nbconvert", "--to", "notebook", "--execute", "--ExecutePreprocessor.timeout=300",
               "--output-dir", out, str(path)]
        print("+", " ".join(cmd), flush=True)
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout + proc.stderr)
            print(f"FAILED: {path} did not execute cleanly (exit {proc.returncode})")
            return 1
        nb = json.loads((Path(out) / Path(path).name).read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    errors = [o for c in cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    figures = sum(1 for c in cells for o in c.get("outputs", []) if "image/png" in o.get("data", {}) or "image/svg+xml" in o.get("data", {}))
    if errors or any(c.get("execution_count") is None for c in cells):
        print(f"FAILED: {path}: {len(errors)} cells raised, or a cell did not run", file=sys.stderr)
        return 1
    print(f"{path}: {len(cells)} code cells executed, {figures} figures, no errors")
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "--committed":
        sys.exit(check_committed(sys.argv[2], sys.argv[3:]))
    sys.exit(execute(sys.argv[1]))
