#!/usr/bin/env python3
"""Writes constants.inc for the C runner: C(NAME) for every integer macro
(#define ETW_... <number>) of the given headers and of the headers they
include with #include "..." (filter.h through session.h), each name once, so
the runner resolves the scenario's names through the headers themselves.
usage: constants.py OUTPUT HEADER...
"""
import os
import re
import sys

macro = re.compile(r"^#define\s+((?:ETW|OPENETW)_\w+)\s+[0-9]", re.M)
include = re.compile(r'^#include\s+"([^"]+)"', re.M)
names, seen = [], set()


def scan(path):
    path = os.path.normpath(path)
    if path in seen:
        return
    seen.add(path)
    text = open(path).read()
    for name in macro.findall(text):
        if name not in names:
            names.append(name)
    for inner in include.findall(text):
        scan(os.path.join(os.path.dirname(path), inner))


for header in sys.argv[2:]:
    scan(header)
with open(sys.argv[1], "w") as out:
    out.write("".join(f"C({name})\n" for name in names))
