"""The PEP 517 build backend of pyproject.toml: `pip install .` (with or without build isolation,
offline: it needs nothing but the standard library) makes a wheel holding

  tfx.py                                  the helper (python/tfx.py)
  tfx-V.data/scripts/tfx                  the tfx binary -> <venv or prefix>/bin/tfx, where tfx.py looks
  tfx-V.data/data/share/tfx/models/bert   the tiny random-weight BERT of tests/data (notebooks' samples)
  tfx-V.data/data/share/locale/ko/LC_MESSAGES/tfx.mo
                                          the Korean catalog (tfx.LANG = "ko"): the one built beside the
                                          binary (<build>/locale), else po/ko.po compiled with msgfmt;
                                          the installed bin/tfx finds it in ../share/locale

The binary is, in order: $TFX_BINARY; build/tfx, then any build-*/tfx of the checkout (the presets'
folders, newest first, the sanitizer build last); else the checkout is built with CMake
(cmake -S . -B build -DCMAKE_BUILD_TYPE=Release; cmake --build build --target tfx), which needs the
Debian packages setup.sh lists. TFX_PIP_NO_BINARY=1 makes a wheel of the helper alone (tfx on PATH).

"Preparing metadata" (prepare_metadata_for_build_wheel) writes METADATA and builds nothing. Before
building anything, preflight() checks what the build will need — numpy for the helper (unless pip's
isolated build environment hides the target's packages), cmake, a C++ compiler, msgfmt and the
headers of setup.sh's Debian packages — and names everything missing in one message.
"""
import base64
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAME = "tfx"


def _version():
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    m = re.search(r"project\(\s*tfx\b[^)]*\bVERSION\s+([0-9][0-9.]*)", text, re.S)
    return m.group(1) if m else "0.0.0"


def _candidates(root):
    found = [root / "build" / "tfx"]
    others = sorted((p for p in root.glob("build-*/tfx") if p.is_file()), key=lambda p: -p.stat().st_mtime)
    return found + [p for p in others if "asan" not in p.parent.name] + [p for p in others if "asan" in p.parent.name]


def find_binary(root=ROOT, build=True, log=sys.stderr):
    """The tfx binary the wheel carries: $TFX_BINARY, build/tfx, build-*/tfx, or one CMake builds."""
    env = os.environ.get("TFX_BINARY")
    if env:
        if not Path(env).is_file():
            raise RuntimeError(f"TFX_BINARY={env}: no such file")
        return Path(env)
    for p in _candidates(root):
        if p.is_file() and os.access(p, os.X_OK):
            return p
    if not build:
        return None
    cmake = shutil.which("cmake")
    preflight(root)
    print("tfx: no built binary found; building it with CMake (build/)", file=log)
    subprocess.run([cmake, "-S", str(root), "-B", str(root / "build"), "-DCMAKE_BUILD_TYPE=Release"], check=True,
                   stdout=log, stderr=log)
    subprocess.run([cmake, "--build", str(root / "build"), "--target", "tfx", "-j", str(min(4, os.cpu_count() or 1))],
                   check=True, stdout=log, stderr=log)
    return root / "build" / "tfx"


# What building tfx needs (setup.sh's list): a header each Debian package installs, for the check
# before building.
_DEBIAN_HEADERS = [
    ("libcli11-dev", "CLI/CLI.hpp"), ("libfmt-dev", "fmt/format.h"), ("nlohmann-json3-dev", "nlohmann/json.hpp"),
    ("libstb-dev", "stb/stb_image.h"), ("zlib1g-dev", "zlib.h"), ("libxxhash-dev", "xxhash.h"),
    ("libsleef-dev", "sleef.h"), ("libfontconfig-dev", "fontconfig/fontconfig.h"), ("libgif-dev", "gif_lib.h"),
]


def _isolated_build_env():
    """pip's build isolation runs this backend with its own site-packages only: the target
    environment's numpy cannot be seen from here."""
    return any("pip-build-env" in p for p in sys.path) or "pip-build-env" in os.environ.get("PYTHONPATH", "")


def missing_requirements(root=ROOT):
    """What building tfx would stop on, as human strings: cmake, a C++ compiler, make, msgfmt and
    the Debian -dev packages whose headers are absent — and, with any of those, numpy when this
    Python lacks it (and pip's isolation does not hide it), so one message names all of it.
    numpy alone is pip's to resolve (it stops at once offline, or fetches it from an index)."""
    import importlib.util
    if not (root / "CMakeLists.txt").is_file():
        return [f"the tfx sources (no CMakeLists.txt in {root})"]
    packages = []
    if not shutil.which("cmake"):
        packages.append("cmake")
    if not (shutil.which("c++") or shutil.which("g++") or shutil.which("clang++") or os.environ.get("CXX")):
        packages.append("g++")
    if not shutil.which("make") and not shutil.which("ninja"):
        packages.append("make")
    if not shutil.which("msgfmt"):
        packages.append("gettext")
    dirs = [Path("/usr/include"), Path("/usr/local/include")] + sorted(Path("/usr/include").glob("*-linux-gnu*"))
    for package, header in _DEBIAN_HEADERS:
        if not any((d / header).is_file() for d in dirs):
            packages.append(package)
    if not packages:
        return []
    missing = ["Debian packages " + " ".join(packages) + " (apt-get install -y --no-install-recommends " +
               " ".join(packages) + ")"]
    if not _isolated_build_env() and importlib.util.find_spec("numpy") is None:
        missing.append(f"numpy for {sys.executable} (Debian: python3-numpy, with python3 -m venv --system-site-packages; "
                       "or pip install numpy from an index)")
    return missing


def preflight(root=ROOT):
    """Before building tfx: raises one RuntimeError naming everything missing (nothing is built)."""
    missing = missing_requirements(root)
    if missing:
        raise RuntimeError("tfx: cannot install: there is no tfx binary in build/ or build-*/ of the checkout to put in "
                           "the wheel, and building one needs what is missing here: " + "; ".join(missing) +
                           ". Or build tfx elsewhere and set TFX_BINARY, or TFX_PIP_NO_BINARY=1 to install the helper "
                           "alone (tfx on PATH)")


def _catalog_files(version, binary):
    """The compiled Korean catalog for <prefix>/share/locale, where the installed bin/tfx looks:
    the one the build made beside the binary, else po/ko.po through msgfmt (none without either)."""
    out = {}
    for po in sorted((ROOT / "po").glob("*.po")):
        lang = po.stem
        built = Path(binary).parent / "locale" / lang / "LC_MESSAGES" / "tfx.mo" if binary else None
        data = None
        if built is not None and built.is_file():
            data = built.read_bytes()
        elif shutil.which("msgfmt"):
            p = subprocess.run(["msgfmt", "--check", "-o", "-", str(po)], capture_output=True)
            if p.returncode == 0:
                data = p.stdout
        if data:
            out[f"{NAME}-{version}.data/data/share/locale/{lang}/LC_MESSAGES/tfx.mo"] = data
    return out


def _platform_tag():
    return re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _metadata(version):
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\n"
            "Summary: tfx from Python: the transformer building-block calculator's commands as functions (notebook helper)\n"
            "Requires-Python: >=3.8\nRequires-Dist: numpy\n")


def _write_wheel(directory, files, tag, editable=False):
    version = _version()
    dist = f"{NAME}-{version}"
    wheel = f"{dist}-{tag}.whl"
    info = f"{dist}.dist-info"
    files = dict(files)
    files.update(_dist_info_files(version, tag))
    record = [_record_line(name, data) for name, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    path = Path(directory) / wheel
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            zi = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = (stat.S_IFREG | (0o755 if name.endswith("/scripts/tfx") else 0o644)) << 16
            z.writestr(zi, data)
    return wheel


def _sample_files(version):
    out = {}
    for model in ("bert", "gpt2"):  # the notebooks' tiny checkpoints (random weights)
        folder = ROOT / "tests" / "data" / "hf_models" / model
        if folder.is_dir():
            for f in sorted(folder.iterdir()):
                if f.is_file() and f.name != "reference.safetensors":
                    out[f"{NAME}-{version}.data/data/share/tfx/models/{model}/{f.name}"] = f.read_bytes()
    return out


# ---- PEP 517 hooks ----

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def _dist_info_files(version, tag):
    info = f"{NAME}-{version}.dist-info"
    return {
        f"{info}/METADATA": _metadata(version).encode(),
        f"{info}/WHEEL": (f"Wheel-Version: 1.0\nGenerator: tfx_build\nRoot-Is-Purelib: {'true' if tag.endswith('any') else 'false'}\n"
                          f"Tag: {tag}\n").encode(),
        f"{info}/top_level.txt": b"tfx\n",
    }


def _wheel_tag():
    return "py3-none-any" if os.environ.get("TFX_PIP_NO_BINARY") == "1" else f"py3-none-{_platform_tag()}"


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """pip's "Preparing metadata": the .dist-info with METADATA, built from pyproject's facts alone —
    nothing is built here. When the wheel would have to build tfx, what that needs is checked now
    (preflight), so a missing compiler or package is said in one message before pip goes on."""
    if os.environ.get("TFX_PIP_NO_BINARY") != "1" and find_binary(build=False) is None:
        preflight()
    version = _version()
    info = f"{NAME}-{version}.dist-info"
    for name, data in _dist_info_files(version, _wheel_tag()).items():
        path = Path(metadata_directory) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return info


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    version = _version()
    info = f"{NAME}-{version}.dist-info"
    for name, data in _dist_info_files(version, "py3-none-any").items():
        path = Path(metadata_directory) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    files = {"tfx.py": (ROOT / "python" / "tfx.py").read_bytes()}
    files.update(_sample_files(version))
    tag = _wheel_tag()
    binary = None
    if os.environ.get("TFX_PIP_NO_BINARY") != "1":
        binary = find_binary()  # builds only after preflight() found nothing missing
        files[f"{NAME}-{version}.data/scripts/tfx"] = Path(binary).read_bytes()
    files.update(_catalog_files(version, binary))
    return _write_wheel(wheel_directory, files, tag)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """pip install -e .: a .pth file putting python/ on sys.path; tfx.py then runs the checkout's build/tfx."""
    version = _version()
    files = {"tfx_checkout.pth": (str(ROOT / "python") + "\n").encode()}
    files.update(_sample_files(version))
    return _write_wheel(wheel_directory, files, "py3-none-any", editable=True)


def build_sdist(sdist_directory, config_settings=None):
    import tarfile
    version = _version()
    name = f"{NAME}-{version}"
    path = Path(sdist_directory) / f"{name}.tar.gz"
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True)
    names = tracked.stdout.split() if tracked.returncode == 0 else ["pyproject.toml", "CMakeLists.txt", "python/tfx.py"]
    with tarfile.open(path, "w:gz") as tar:
        for n in names:
            if (ROOT / n).is_file():
                tar.add(ROOT / n, arcname=f"{name}/{n}")
        pkg = _metadata(version).encode()
        import io
        ti = tarfile.TarInfo(f"{name}/PKG-INFO")
        ti.size = len(pkg)
        tar.addfile(ti, io.BytesIO(pkg))
    return path.name
