#!/usr/bin/env python3
"""The catalogs are complete and safe (issue 24 §16):
- every string the sources mark (tr, trf, N_; extracted afresh with xgettext) has an entry in
  each po/<lang>.po, translated (a non-empty msgstr, not fuzzy);
- each translation keeps its original's fmt placeholders: the same argument indices with the
  same format specs (a translation may reorder with explicit {0} {1}; "{{" stays literal);
- msgfmt --check accepts the file.
Usage: check_catalog.py [ROOT]"""
import os
import re
import subprocess
import sys
import tempfile

from report import report


def parse_po(path):
    entries = {}
    cur = {"flags": "", "msgid": None, "msgstr": None}
    field = None

    def flush():
        if cur["msgid"] is not None and cur["msgstr"] is not None:
            entries[cur["msgid"]] = (cur["msgstr"], "fuzzy" in cur["flags"])

    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if line.startswith("#~"):
            continue
        if line.startswith("#,"):
            flush()
            cur = {"flags": line, "msgid": None, "msgstr": None}
            field = None
        elif line.startswith("msgid "):
            if cur["msgstr"] is not None:
                flush()
                cur = {"flags": "", "msgid": None, "msgstr": None}
            cur["msgid"] = eval(line[6:])
            field = "msgid"
        elif line.startswith("msgid_plural "):
            field = None  # the plural original: its placeholders are the singular's
        elif line.startswith("msgstr ") or line.startswith("msgstr[0] "):
            cur["msgstr"] = eval(line.split(" ", 1)[1])
            field = "msgstr"
        elif line.startswith("msgstr["):
            field = None
        elif line.startswith('"') and field:
            cur[field] += eval(line)
        elif not line.strip():
            flush()
            cur = {"flags": "", "msgid": None, "msgstr": None}
            field = None
    flush()
    entries.pop("", None)
    return entries


def placeholders(s):
    """fmt replacement fields as (index, spec), auto-numbered fields numbered in order."""
    s = s.replace("{{", "").replace("}}", "")
    out, auto = [], 0
    for m in re.finditer(r"\{([0-9]*)(?::([^}]*))?\}", s):
        if m.group(1) == "":
            idx = auto
            auto += 1
        else:
            idx = int(m.group(1))
        out.append((idx, m.group(2) or ""))
    mixed = auto > 0 and any(re.finditer(r"\{[0-9]+(?::[^}]*)?\}", s))
    return sorted(set(out)), mixed


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    files = []
    for d in ("src", "include"):
        for dp, _, fs in os.walk(os.path.join(root, d)):
            files += [os.path.relpath(os.path.join(dp, f), root) for f in fs if f.endswith((".cpp", ".hpp", ".inc"))]
    with tempfile.TemporaryDirectory() as tmp:
        pot = os.path.join(tmp, "tfx.pot")
        lst = os.path.join(tmp, "files")
        open(lst, "w").write("\n".join(sorted(files)) + "\n")
        try:
            subprocess.run(["xgettext", "--language=C++", "--from-code=UTF-8", "--keyword=tr", "--keyword=trf", "--keyword=N_", "--keyword=trn:1,2", "--keyword=trnf:1,2",
                            "--files-from=" + lst, "-o", pot], cwd=root, check=True)
        except FileNotFoundError:
            print("TFX-SKIP: xgettext not found (Debian: gettext)")
            return 0
        marked = parse_po(pot)
    failures = []
    langs = sorted(f[:-3] for f in os.listdir(os.path.join(root, "po")) if f.endswith(".po"))
    for lang in langs:
        path = os.path.join(root, "po", lang + ".po")
        r = subprocess.run(["msgfmt", "--check", "-o", os.devnull, path], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"{lang}.po: msgfmt --check: {r.stderr.strip()}")
        po = parse_po(path)
        for msgid in marked:
            if msgid not in po:
                failures.append(f"{lang}.po: missing (run scripts/update-po.sh, then translate): {msgid!r}")
                continue
            msgstr, fuzzy = po[msgid]
            if not msgstr:
                failures.append(f"{lang}.po: untranslated: {msgid!r}")
            elif fuzzy:
                failures.append(f"{lang}.po: fuzzy: {msgid!r}")
            else:
                a, _ = placeholders(msgid)
                b, mixed = placeholders(msgstr)
                if mixed:
                    failures.append(f"{lang}.po: mixes {{}} and {{0}} fields: {msgstr!r}")
                elif a != b:
                    failures.append(f"{lang}.po: placeholders {b} differ from the original's {a}: {msgid!r} -> {msgstr!r}")
    return report("check_catalog", f"{len(marked)} marked strings, {len(langs)} catalog(s)", failures)


if __name__ == "__main__":
    sys.exit(main())
