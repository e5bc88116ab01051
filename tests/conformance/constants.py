#!/usr/bin/env python3
"""Writes constants.inc for the C runner: C(NAME) for every integer macro
(#define ETW_... <number>) of the given headers, so the runner resolves the
scenario's names through the headers themselves.
usage: constants.py OUTPUT HEADER...
"""
import re
import sys

macro = re.compile(r"^#define\s+((?:ETW|OPENETW)_\w+)\s+[0-9]", re.M)
names = [name for path in sys.argv[2:] for name in macro.findall(open(path).read())]
with open(sys.argv[1], "w") as out:
    out.write("".join(f"C({name})\n" for name in names))
