"""The committed teaching translator comes from scripts/train_teaching_model.py and its seed: a
20-step run from the seed reproduces the first 20 losses of the committed training log
(data/teaching_model/train_log.tsv), and the committed corpus is what the script generates.
Needs Debian's python3-torch; without it prints TFX-SKIP (ctest reports the entry as skipped)."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    try:
        import torch  # noqa: F401
    except ImportError:
        print("TFX-SKIP: python3-torch is not installed; the training reproducibility check needs it")
        return 0
    committed = open(os.path.join(ROOT, "data", "teaching_model", "train_log.tsv")).read().split("\n")[1:21]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "train_teaching_model.py"), "--steps", "20", "--out", tmp,
                        "--quiet"], check=True, stdout=subprocess.DEVNULL)
        fresh = open(os.path.join(tmp, "train_log.tsv")).read().split("\n")[1:21]
    bad = 0
    for a, b in zip(committed, fresh):
        sa, la = a.split("\t")
        sb, lb = b.split("\t")
        if sa != sb or abs(float(la) - float(lb)) > 1e-4:
            print(f"step {sa}: committed loss {la}, a fresh run from the seed {lb}")
            bad += 1
    if len(fresh) != 20:
        print(f"the 20-step run logged {len(fresh)} steps")
        bad += 1
    print(f"20 training steps from the seed: {20 - bad} of 20 losses equal the committed log (±1e-4)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
