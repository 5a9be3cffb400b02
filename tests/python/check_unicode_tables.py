"""src/text/unicode_tables.inc is what scripts/gen_unicode_tables.py writes with this Python (the
committed tables cannot drift from their generator). Skipped when this Python's Unicode version
differs from the committed tables' (another Debian release): the tables are then still valid
for their own version, and the C++ tests check tfx against them.

    /usr/bin/python3 tests/python/check_unicode_tables.py
"""
import os
import re
import subprocess
import sys
import unicodedata

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
committed = open(os.path.join(root, "src", "text", "unicode_tables.inc"), encoding="utf-8").read()
version = re.search(r'kUnicodeVersion = "([^"]+)"', committed).group(1)
if version != unicodedata.unidata_version:
    print(f"TFX-SKIP: the tables are Unicode {version}, this Python has {unicodedata.unidata_version}")
    sys.exit(0)
fresh = subprocess.run([sys.executable, os.path.join(root, "scripts", "gen_unicode_tables.py")], check=True,
                       capture_output=True, text=True).stdout
# the first line names the Python version that wrote the file; the data must be identical
if fresh.split("\n")[1:] != committed.split("\n")[1:]:
    print("src/text/unicode_tables.inc differs from scripts/gen_unicode_tables.py's output: regenerate it with\n"
          "  /usr/bin/python3 scripts/gen_unicode_tables.py > src/text/unicode_tables.inc")
    print("0 passed, 1 failed")
    sys.exit(1)
print("src/text/unicode_tables.inc is the generator's output")
print("1 passed, 0 failed")
