#!/usr/bin/env python3
"""One Korean term per concept (issue 50): the glossary table of docs/korean.md ("## Glossary":
| concept | term | not |, the last column a comma-separated list of `regex` variants) holds in
every msgstr of po/ko.po, and a particle marker ("{}을(를)") stands only right after a field. Each
failure is printed with its msgid, so the fix is one edit.
Usage: check_glossary.py [ROOT]"""
import re
import sys
from pathlib import Path

from check_catalog import parse_po

root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
doc = (root / "docs" / "korean.md").read_text(encoding="utf-8")
section = doc.split("## Glossary", 1)[1].split("\n## ", 1)[0]
rules = []
for line in section.splitlines():
    if not line.startswith("| ") or line.startswith("| ---") or line.startswith("| concept"):
        continue
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
    if len(cells) < 3:
        continue
    concept, term, variants = cells[0], cells[1], cells[2]
    for v in re.findall(r"`([^`]+)`", variants):
        rules.append((concept, term, re.compile(v.replace("\\\\", "\\").replace("\\|", "|"))))
if len(rules) < 8:
    print(f"FAIL docs/korean.md: the glossary has {len(rules)} variants; expected its table")
    sys.exit(1)

entries = parse_po(root / "po" / "ko.po")
failures = []
for msgid, (msgstr, fuzzy) in entries.items():
    for concept, term, rx in rules:
        m = rx.search(msgstr)
        if m:
            failures.append(f"po/ko.po: '{m.group(0)}' for {concept} (the glossary says {term}):\n"
                            f"    msgid  {msgid!r}\n    msgstr {msgstr!r}")
# a particle marker stands right after a field (maybe after closing quotes or brackets), where
# tfx replaces it with the agreeing form; anywhere else it would print as it is
marker = re.compile(r"은\(는\)|는\(은\)|이\(가\)|가\(이\)|을\(를\)|를\(을\)|과\(와\)|와\(과\)|\(으\)로")
for msgid, (msgstr, fuzzy) in entries.items():
    for m in marker.finditer(msgstr):
        if not re.search(r"(?<!\})\}['\")\]”’»]*$", msgstr[:m.start()]):
            failures.append(f"po/ko.po: the particle marker '{m.group(0)}' does not follow a field, so it would print as it is:\n"
                            f"    msgid  {msgid!r}\n    msgstr {msgstr!r}")
for f in failures:
    print("FAIL " + f)
print(f"check_glossary: {len(rules)} variants of {len(set(r[0] for r in rules))} concepts, {len(entries)} entries, "
      f"{len(failures)} failures")
sys.exit(1 if failures else 0)
