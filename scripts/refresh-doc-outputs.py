#!/usr/bin/python3
"""Re-aligns the output the docs show after a change of spacing only (a table's column alignment):
runs every `    $ tfx …` command of the pages given, as tests/python/check_tutorial.py does, and
replaces each shown line that is no longer in the output by the output line with the same words
(split at whitespace). A shown line whose words changed is left alone and reported: that is a
change of content, for a person to look at.

    TFX_BINARY=build/tfx /usr/bin/python3 scripts/refresh-doc-outputs.py docs/tutorial.md …
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
import check_tutorial as ct  # noqa: E402


def refresh(path, tfx, env):
    lines = open(path, encoding="utf-8").read().split("\n")
    changed, left = 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for line_no, cmd, shown in ct.blocks(lines):
            command = re.sub(r"\s+#.*$", "", cmd)
            needs = [f for f in re.findall(r"\S+\.(?:npy|safetensors)\b", command) if not f.startswith("<")]
            if any(not os.path.exists(os.path.join(tmp, f)) for f in needs):
                code = ct.python_snippet(lines, line_no)
                if code is None:
                    continue
                subprocess.run([sys.executable, "-c", code], cwd=tmp, check=True)
            r = subprocess.run(["bash", "-c", tfx + command[3:]], cwd=tmp, env=env, capture_output=True, text=True)
            got = (r.stdout + r.stderr).rstrip("\n").split("\n")
            # the shown lines sit at line_no … in `lines`, indented by 4
            k, i = 0, line_no  # i: index in `lines` of the line after the command
            for s in shown:
                while not (lines[i].startswith("    ") and lines[i][4:] == s):
                    i += 1
                if s.strip() in ("", "…"):
                    i += 1
                    continue
                j = k
                while j < len(got) and not ct.same(s, got[j]):
                    j += 1
                if j < len(got):
                    k = j + 1
                else:
                    words = ct.rounding_free(s).split()
                    j = k
                    while j < len(got) and ct.rounding_free(got[j]).split() != words:
                        j += 1
                    if j < len(got):
                        lines[i] = "    " + got[j].rstrip()
                        changed += 1
                        k = j + 1
                    else:
                        print(f"{path}:{i + 1}: not in the output of `{cmd}`, left alone: {s}")
                        left += 1
                i += 1
    open(path, "w", encoding="utf-8").write("\n".join(lines))
    return changed, left


def main():
    tfx = os.environ.get("TFX_BINARY", "build/tfx")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "TFX_EMBEDDINGS", "TFX_FONT")}
    env["NO_COLOR"] = "1"
    for path in sys.argv[1:]:
        c, l = refresh(path, tfx, env)
        print(f"{path}: {c} lines re-aligned, {l} left alone")


if __name__ == "__main__":
    sys.exit(main())
