#!/usr/bin/env python3
"""Checks that README.md shows each example file verbatim (after its first
comment line or docstring), so the examples the tests run are the ones
users read. usage: readme-examples.py README FILE..."""
import sys

readme = open(sys.argv[1], encoding="utf-8").read()
missing = []
for path in sys.argv[2:]:
    lines = open(path, encoding="utf-8").read().splitlines()
    # The README introduces each example itself: skip the file's heading comment.
    while lines and lines[0].startswith(("//", '"""', "/*", " *")):
        lines.pop(0)
    body = "\n".join(lines).strip("\n")
    if body not in readme:
        missing.append(path)
for path in missing:
    print(f"README.md does not show {path} as it is")
sys.exit(1 if missing else 0)
