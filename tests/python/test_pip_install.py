"""`pip install .` of the checkout, offline, as a student would (issue 38): pyproject.toml's backend
(python/tfx_build) puts the helper, the tfx binary and the sample BERT in a wheel.

In a fresh venv (--system-site-packages, for Debian's numpy) made by /usr/bin/python3: pip install
with and without build isolation (--no-index: PyPI is never asked), then, from an empty folder with
PATH=/usr/bin:/bin and no TFX_BINARY/PYTHONPATH, `import tfx` runs the venv's bin/tfx and gets the
CLI's numbers, and with tfx.LANG = "ko" Korean output (the wheel carries the compiled catalog
share/locale/ko/LC_MESSAGES/tfx.mo, which the installed bin/tfx finds); a --prefix install does the
same; a checkout whose only binary is a preset's build-native/tfx puts that one in the wheel. A
checkout with no binary on a machine without the build tools stops in "Preparing metadata" at
once, with one message naming all that is missing (numpy too, for a Python without it), having
built nothing.
ctest entry python_pip_install.
"""
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path

SRC = Path(__file__).resolve().parents[2]
TFX = os.environ.get("TFX_BINARY")
PY = "/usr/bin/python3"

try:
    import numpy as np
except ImportError:
    print("TFX-SKIP: /usr/bin/python3 has no numpy (Debian: python3-numpy)")
    sys.exit(0)
probe = subprocess.run([PY, "-c", "import venv, ensurepip"], capture_output=True)
if probe.returncode != 0:
    print("TFX-SKIP: /usr/bin/python3 cannot make a venv with pip (Debian: python3-venv)")
    sys.exit(0)


def clean_env():
    env = {k: v for k, v in os.environ.items() if k not in ("TFX_BINARY", "PYTHONPATH", "PIP_INDEX_URL")}
    env["PATH"] = "/usr/bin:/bin"
    env["PIP_NO_INDEX"] = "1"           # offline: pip never asks PyPI
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, env=kw.pop("env", clean_env()), **kw)
    if p.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p.stdout


CHECK = """
import io, subprocess, sys, numpy as np, tfx
print(tfx.binary())
print(tfx.sample_model("bert"))
want = np.load(io.BytesIO(subprocess.run([tfx.binary(), "pe", "--len", "3", "--dim", "4", "--format", "npy"],
                                         capture_output=True, check=True).stdout))
assert np.array_equal(tfx.pe(len=3, dim=4), want)
print(tfx.model.attention(tfx.sample_model("bert"), "the cat sat").shape)
tfx.LANG = "ko"
p = subprocess.run([tfx.binary(), "similar", "king", "-k", "2", "--lang", "ko"], capture_output=True, text=True, check=True)
assert "catalog" not in p.stderr, p.stderr
print(tfx.table("similar", "king", k=2).splitlines()[0])
"""


@unittest.skipUnless(TFX and Path(TFX).is_file(), "TFX_BINARY (the built tfx) not set")
class PipInstall(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tfx-pip-")
        cls.root = Path(cls.tmp.name)
        cls.venv = cls.root / "venv"
        run([PY, "-m", "venv", "--system-site-packages", str(cls.venv)])
        cls.empty = cls.root / "empty"
        cls.empty.mkdir()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check_venv(self):
        out = run([str(self.venv / "bin" / "python"), "-c", CHECK], cwd=self.empty).splitlines()
        self.assertEqual(out[0], str(self.venv / "bin" / "tfx"))
        self.assertEqual(out[1], str(self.venv / "share" / "tfx" / "models" / "bert"))
        self.assertEqual(out[2], "(2, 4, 5, 5)")
        # Korean from the installed catalog: "코사인 기준 king에 가장 가까운 단어 …"
        self.assertIn("코사인 기준 king에 가장 가까운 단어", out[3])
        self.assertTrue((self.venv / "share" / "locale" / "ko" / "LC_MESSAGES" / "tfx.mo").is_file())
        self.assertTrue(os.access(self.venv / "bin" / "tfx", os.X_OK))

    def test_1_no_build_isolation(self):
        env = clean_env()
        env["TFX_BINARY"] = TFX  # the binary under test goes into the wheel
        run([str(self.venv / "bin" / "pip"), "install", "--no-build-isolation", "--force-reinstall", "--no-deps", str(SRC)],
            cwd=self.empty, env=env)
        self.check_venv()
        self.assertEqual((self.venv / "bin" / "tfx").read_bytes(), Path(TFX).read_bytes())

    def test_2_with_build_isolation(self):
        env = clean_env()
        env["TFX_BINARY"] = TFX
        run([str(self.venv / "bin" / "pip"), "install", "--force-reinstall", "--no-deps", str(SRC)], cwd=self.empty, env=env)
        self.check_venv()

    def test_3_prefix(self):
        prefix = self.root / "prefix"
        env = clean_env()
        env["TFX_BINARY"] = TFX
        run([PY, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--prefix", str(prefix), str(SRC)],
            cwd=self.empty, env=env)
        helper = [p for p in prefix.rglob("tfx.py")]
        self.assertEqual(len(helper), 1)
        env = clean_env()
        env["PYTHONPATH"] = str(helper[0].parent)
        out = run([PY, "-c", CHECK], cwd=self.empty, env=env).splitlines()
        self.assertTrue(out[0].startswith(str(prefix)) and out[0].endswith("/bin/tfx"), out[0])
        self.assertTrue(out[1].startswith(str(prefix)), out[1])
        self.assertIn("코사인 기준 king에 가장 가까운 단어", out[3])

    def test_4_preset_build_folder(self):
        src = self.root / "checkout"
        for rel in ("pyproject.toml", "CMakeLists.txt", "python/tfx.py", "po/ko.po"):
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(SRC / rel, src / rel)
        shutil.copytree(SRC / "python" / "tfx_build", src / "python" / "tfx_build",
                        ignore=shutil.ignore_patterns("__pycache__"))
        (src / "build-native").mkdir()  # a binary alone, no locale/ beside it: the catalog is compiled from po/ko.po
        shutil.copy(TFX, src / "build-native" / "tfx")
        wheels = self.root / "wheels"
        run([str(self.venv / "bin" / "pip"), "wheel", "--no-build-isolation", "--no-deps", "-w", str(wheels), str(src)],
            cwd=self.empty)
        (wheel,) = wheels.glob("tfx-*.whl")
        with zipfile.ZipFile(wheel) as z:
            names = z.namelist()
            binary = [n for n in names if n.endswith(".data/scripts/tfx")]
            self.assertEqual(len(binary), 1, names)
            self.assertEqual(z.read(binary[0]), Path(TFX).read_bytes())
            self.assertIn("tfx.py", names)
            self.assertTrue(any(n.endswith(".data/data/share/locale/ko/LC_MESSAGES/tfx.mo") for n in names), names)
        self.assertNotIn("none-any", wheel.name)  # it carries a binary: a platform wheel

    def test_6_nothing_built_and_one_message(self):
        """No binary in the checkout and no build tools on PATH: pip stops in "Preparing metadata" at
        once with one message naming cmake, the compiler, make and msgfmt, and builds nothing; a
        Python without numpy (site-packages off) gets numpy named in the same message."""
        import time
        src = self.root / "bare-checkout"
        for rel in ("pyproject.toml", "CMakeLists.txt", "python/tfx.py"):
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(SRC / rel, src / rel)
        shutil.copytree(SRC / "python" / "tfx_build", src / "python" / "tfx_build",
                        ignore=shutil.ignore_patterns("__pycache__"))
        nothing = self.root / "no-tools"
        nothing.mkdir(exist_ok=True)
        env = clean_env()
        env["PATH"] = str(nothing)  # no cmake, c++, make, msgfmt
        start = time.monotonic()
        p = subprocess.run([str(self.venv / "bin" / "python"), "-m", "pip", "install", "--no-build-isolation", "--no-deps", str(src)],
                           capture_output=True, text=True, cwd=self.empty, env=env)
        seconds = time.monotonic() - start
        self.assertNotEqual(p.returncode, 0)
        text = p.stdout + p.stderr
        self.assertIn("Preparing metadata", text)
        lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("RuntimeError: tfx: cannot install:")]
        self.assertEqual(len(lines), 1, text[-3000:])
        for word in ("cmake", "g++", "make", "gettext"):
            self.assertIn(word, lines[0])
        self.assertFalse((src / "build").exists())
        self.assertLess(seconds, 60, text[-2000:])
        # the same check from a Python that cannot import numpy: numpy is in the one message too
        probe = subprocess.run([PY, "-S", "-c", "import sys; sys.path.insert(0, sys.argv[1]); import tfx_build\n"
                                "try:\n    tfx_build.preflight()\nexcept RuntimeError as e:\n    print(e)",
                                str(src / "python")], capture_output=True, text=True, env=env)
        self.assertIn("tfx: cannot install:", probe.stdout, probe.stderr)
        self.assertIn("numpy for", probe.stdout)
        self.assertIn("cmake", probe.stdout)

    def test_5_notebooks_alone_in_an_empty_folder(self):
        """samples/*.ipynb copied alone into an empty folder run with the installed tfx: the tiny BERT
        comes from the installed package data, the GloVe cell says it skipped."""
        probe = subprocess.run([str(self.venv / "bin" / "python"), "-c", "import nbclient, ipykernel"], capture_output=True)
        if probe.returncode != 0:
            self.skipTest("no nbclient/ipykernel (Debian: jupyter-nbconvert, python3-ipykernel)")
        alone = self.root / "alone"
        alone.mkdir()
        for name in ("lecture.ipynb", "head_view.ipynb"):
            shutil.copy(SRC / "samples" / name, alone / name)
        script = """
import json, sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": sys.argv[2]}}).execute()
text = []
for c in nb.cells:
    for o in c.get("outputs", []):
        if o.get("output_type") == "error":
            text.append("ERROR " + o["ename"] + ": " + o["evalue"])
        text.append(o.get("text", "") if isinstance(o.get("text", ""), str) else "".join(o["text"]))
        text.append(o.get("data", {}).get("text/html", "")[:200] if "data" in o else "")
print(json.dumps(text))
"""
        env = clean_env()
        env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
        # the venv's own Jupyter kernel (as docs/python.md says), so the notebooks run the venv's python
        run([str(self.venv / "bin" / "python"), "-m", "ipykernel", "install", "--sys-prefix", "--name", "python3"], env=env)
        lecture = "\n".join(json.loads(run([str(self.venv / "bin" / "python"), "-c", script, str(alone / "lecture.ipynb"),
                                              str(alone)], cwd=alone, env=env)))
        self.assertNotIn("ERROR", lecture)
        self.assertIn("('layer', 'head', 'query', 'key')", lecture)  # the BERT cell ran on the installed sample
        self.assertIn("skipped:", lecture)  # the GloVe file is not beside this folder: it says so
        views = "\n".join(json.loads(run([str(self.venv / "bin" / "python"), "-c", script, str(alone / "head_view.ipynb"),
                                            str(alone)], cwd=alone, env=env)))
        self.assertNotIn("ERROR", views)
        self.assertNotIn("skipped:", views)
        self.assertIn("(2, 4, 8, 8)", views)
        self.assertIn("<iframe", views)


if __name__ == "__main__":
    unittest.main(verbosity=2)
