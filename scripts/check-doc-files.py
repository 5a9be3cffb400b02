#!/usr/bin/python3
"""Every file docs/architecture.md names exists: the recipes list the files a change touches, so a
renamed or deleted file must not leave the doc pointing at nothing. A name is any `code span` that
looks like a repository path (it has a '/' and ends in a source, script or doc extension, or is a
folder ending in '/'); `<placeholders>` (src/cli/commands/<family>/<command>.cpp) are matched
against the folders they stand in, so their fixed parts must exist. Prints one line per missing
file and exits 1 when there is any.

    /usr/bin/python3 scripts/check-doc-files.py [REPO] [PAGE …]   (default page: docs/architecture.md)
"""
import glob
import os
import re
import sys

SPAN = re.compile(r"`([^`\s]+)`")
PATHLIKE = re.compile(r"^[A-Za-z0-9_.<>-]+(/[A-Za-z0-9_.<>*-]+)+/?$")
EXT = (".cpp", ".hpp", ".h", ".inc", ".py", ".sh", ".md", ".cmake", ".txt", ".tsv", ".po", ".pot", ".json", ".js", ".css")


def candidates(text):
    for m in SPAN.finditer(text):
        p = m.group(1).rstrip(".,;:")
        if "/" not in p or p.startswith(("-", "http", "$", "../")) or "::" in p:
            continue
        if not PATHLIKE.match(p):
            continue
        if p.endswith("/") or p.endswith(EXT) or "<" in p:
            yield p


def exists(root, p):
    rel = p[2:] if p.startswith("./") else p
    if "<" in rel or "*" in rel:
        pattern = re.sub(r"<[^>]*>", "*", rel)
        return bool(glob.glob(os.path.join(root, pattern)))
    # paths the doc gives relative to include/ (tfx/io/format.hpp) or as the include spells them
    for base in ("", "include/", "src/"):
        if os.path.exists(os.path.join(root, base + rel)):
            return True
    return False


def main():
    args = sys.argv[1:]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    pages = args[1:] or [os.path.join(root, "docs", "architecture.md")]
    missing = 0
    for page in pages:
        for n, line in enumerate(open(page, encoding="utf-8"), 1):
            for p in candidates(line):
                if not exists(root, p):
                    print(f"{os.path.relpath(page, root)}:{n}: names {p}, which does not exist")
                    missing += 1
    print(f"check-doc-files: {missing} missing file{'s' if missing != 1 else ''}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
