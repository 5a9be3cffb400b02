#!/usr/bin/python3
"""Checks the library's layering: a folder of the library (include/tfx/<room>/, src/<room>/) may
include only itself and the rooms BEFORE it in the order docs/architecture.md gives on its line

    **Layering** (each room includes only those before it): `core` < `figure` < … < `embeddings`

src/cli/ (the command layer) may include every room. Prints one line per include against that
order (file:line: room -> room) and exits 1 when there is any, 2 when the order line is missing or
names a folder that does not exist or leaves one out.

    /usr/bin/python3 scripts/check-layering.py [REPO]
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"(?:tfx/)?([a-z_]+)/')


def read_order(root):
    doc = os.path.join(root, "docs", "architecture.md")
    for line in open(doc, encoding="utf-8"):
        if line.startswith("**Layering**"):
            return re.findall(r"`([a-z_]+)`", line.split(":", 1)[1])
    return None


def rooms_of(root):
    src = {d for d in os.listdir(os.path.join(root, "src")) if os.path.isdir(os.path.join(root, "src", d))}
    inc = {d for d in os.listdir(os.path.join(root, "include", "tfx")) if os.path.isdir(os.path.join(root, "include", "tfx", d))}
    return (src | inc) - {"cli"}


def room_files(root, room):
    for base in (os.path.join(root, "src", room), os.path.join(root, "include", "tfx", room)):
        for d, _, files in os.walk(base):
            for f in sorted(files):
                if f.endswith((".cpp", ".hpp", ".h", ".inc")):
                    yield os.path.join(d, f)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    order = read_order(root)
    if not order:
        print("check-layering: docs/architecture.md has no '**Layering**' line naming the rooms in order", file=sys.stderr)
        return 2
    rooms = rooms_of(root)
    if set(order) != rooms:
        print(f"check-layering: the order in docs/architecture.md ({', '.join(order)}) does not name exactly the library's "
              f"folders ({', '.join(sorted(rooms))})", file=sys.stderr)
        return 2
    rank = {r: i for i, r in enumerate(order)}
    bad = 0
    for room in order:
        for path in room_files(root, room):
            for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                m = INCLUDE.match(line)
                if not m or m.group(1) not in rank:
                    continue
                to = m.group(1)
                if rank[to] > rank[room]:
                    print(f"{os.path.relpath(path, root)}:{n}: {room} includes {to}, which comes after it "
                          f"({' < '.join(order)})")
                    bad += 1
    print(f"check-layering: {bad} include{'s' if bad != 1 else ''} against the layering")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
