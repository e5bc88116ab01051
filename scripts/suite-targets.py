#!/usr/bin/env python3
"""Prints the ninja targets a Meson test suite needs: its test programs and
what they depend on, as paths relative to the build folder. A stage that runs
one suite builds only these (the rest of the tree is built by other stages).
usage: suite-targets.py BUILD_DIR SUITE
"""
import json
import os
import subprocess
import sys


def introspect(build, what):
    out = subprocess.run(['meson', 'introspect', build, what], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    build, suite = sys.argv[1], sys.argv[2]
    tests = [t for t in introspect(build, '--tests') if any(s.split(':')[-1] == suite for s in t['suite'])]
    if not tests:
        sys.exit(f'suite-targets.py: no test of {build} is in the suite "{suite}"')
    wanted = {d for t in tests for d in t['depends']}
    paths = set()
    for target in introspect(build, '--targets'):
        if target['id'] in wanted:
            paths.update(os.path.relpath(f, os.path.abspath(build)) for f in target['filename'])
    # A test command that is a program of the build but listed under no target id.
    build_abs = os.path.abspath(build)
    for t in tests:
        if t['cmd'] and t['cmd'][0].startswith(build_abs + os.sep):
            paths.add(os.path.relpath(t['cmd'][0], build_abs))
    print('\n'.join(sorted(paths)))


if __name__ == '__main__':
    main()
