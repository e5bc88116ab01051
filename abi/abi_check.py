#!/usr/bin/env python3
"""OpenETW ABI gate: every check of `meson test --suite abi`, and the
generators abi/update.sh uses. Standard library only.

Subcommands (run with --help for their options):

  headers   the ETW_API declarations in include/openetw/*.h, the names in
            abi/openetw.map and abi/symbols.txt are the same set; every
            function a public header declares is exported (ETW_API) with C
            linkage; openetw.h includes every header; the map is well formed.
  exports   the symbols a built library exports (nm -D on ELF, the export
            table of a PE DLL) equal abi/symbols.txt, with the version node
            the map gives (ELF), the SONAME / DLL name of the ABI number, and
            (PE) no dependency on the C++ runtime DLLs.
  baseline  abidw of the built library (x86_64 Linux, DWARF required) equals
            the committed abi/openetw.abi (abidiff: any change fails), and has
            no incompatible change against each released baseline in
            abi/released/.
  layout    the size, alignment and every field offset and size of every
            public struct, computed by the target compiler, equal the
            committed abi/layout.txt section for the target.
  compile   each public header on its own and the umbrella header compile as
            C99 -pedantic -Werror and as C++11/C++20 -pedantic -Werror, twice
            included, with C linkage for every exported function.

Generators (used by abi/update.sh): sync-map, abidw, dump-layout.

The code is in abicheck/: a module for each check and generator, sharing
abicheck/header_parser.py and abicheck/version_script.py.

Exit status: 0 pass, 1 the check failed, 2 usage or environment error,
77 skipped (meson's convention).
"""

import argparse
import os
import shlex
import subprocess
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree

from abicheck import baseline, compilation, exports, headers, layout, sync_map  # noqa: E402
from abicheck.paths import (DEFAULT_BASELINE, DEFAULT_INCLUDE, DEFAULT_LAYOUT, DEFAULT_MAP,  # noqa: E402
                            DEFAULT_RELEASED, DEFAULT_SYMBOLS)
from abicheck.report import CheckFailed, log  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = p.add_subparsers(dest='command', required=True)

    def common(sp):
        sp.add_argument('--include', default=DEFAULT_INCLUDE, help='the include directory (holding openetw/)')
        sp.add_argument('--map', default=DEFAULT_MAP)
        sp.add_argument('--symbols', default=DEFAULT_SYMBOLS)
        return sp

    common(sub.add_parser('headers', help='declarations == version script == symbols.txt'))
    common(sub.add_parser('sync-map', help='add declared symbols to the open node; rewrite symbols.txt'))
    sp = common(sub.add_parser('exports', help='exported symbols of a built library == symbols.txt'))
    sp.add_argument('--lib', required=True)
    sp.add_argument('--nm', default='nm')
    sp.add_argument('--readelf', default='readelf')
    sp = common(sub.add_parser('baseline', help='abidiff against the committed baseline'))
    sp.add_argument('--lib', required=True)
    sp.add_argument('--baseline', default=DEFAULT_BASELINE)
    sp.add_argument('--released', default=DEFAULT_RELEASED)
    sp.add_argument('--out-dir')
    sp.add_argument('--readelf', default='readelf')
    sp = common(sub.add_parser('abidw', help='write the baseline of a built library'))
    sp.add_argument('--lib', required=True)
    sp.add_argument('--output', default=DEFAULT_BASELINE)
    sp.add_argument('--readelf', default='readelf')
    for name in ('layout', 'dump-layout'):
        sp = common(sub.add_parser(name, help='struct layouts (check, or write a section)'))
        sp.add_argument('--section', required=True, help="Meson's host cpu_family: x86_64, x86, ...")
        sp.add_argument('--cc', required=True, type=shlex.split, help='the C compiler command')
        if name == 'layout':
            sp.add_argument('--expect', default=DEFAULT_LAYOUT)
        else:
            sp.add_argument('--output', default=DEFAULT_LAYOUT)
    sp = common(sub.add_parser('compile', help='header compile tests'))
    sp.add_argument('--cc', required=True, type=shlex.split, help='the C compiler command')
    sp.add_argument('--cxx', required=True, type=shlex.split, help='the C++ compiler command')

    args = p.parse_args(argv)
    for attr in ('include', 'map', 'symbols'):
        setattr(args, attr, os.path.abspath(getattr(args, attr)))
    handler = {'headers': headers.check_headers, 'sync-map': sync_map.sync_map,
               'exports': exports.check_exports, 'baseline': baseline.check_baseline,
               'abidw': baseline.write_baseline, 'layout': layout.check_layout,
               'dump-layout': layout.dump_layout, 'compile': compilation.check_compile}[args.command]
    try:
        return handler(args)
    except CheckFailed as e:
        log('FAIL: %s' % e)
        return 1
    except (OSError, subprocess.CalledProcessError) as e:
        log('ERROR: %s' % e)
        return 2


if __name__ == '__main__':
    sys.exit(main())
