"""The exports check: what a built library exports (nm -D on ELF, the export
table of a PE DLL) is exactly abi/symbols.txt, with the version node the map
gives (ELF) and the SONAME or DLL name of the ABI number; the DLL needs no
C++ runtime DLL. The headers check cannot see what the linker hides or
leaks."""

import os
import re
import subprocess

from .header_parser import abi_number
from .paths import show
from .pe_file import PEFile
from .report import CheckFailed, fail_list, log
from .version_script import VersionScript, read_symbol_list

# The C++ runtime DLLs openetw-N.dll must not depend on.
FORBIDDEN_DLL_IMPORTS = re.compile(r'^(libstdc\+\+|libgcc_s|libwinpthread|libc\+\+|libunwind)', re.I)


def elf_exports(lib, nm):
    out = subprocess.run([nm, '-D', '--defined-only', lib], check=True,
                         capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, name = parts[-2], parts[-1]
        version, default = None, True
        if '@@' in name:
            name, version = name.split('@@', 1)
        elif '@' in name:
            name, version = name.split('@', 1)
            default = False
        if kind == 'A' and (version is None or version == name):
            continue                    # a version node's own definition
        syms[name] = (version, default, kind)
    return syms


def elf_soname(lib, readelf):
    out = subprocess.run([readelf, '-d', '-W', lib], check=True, capture_output=True, text=True).stdout
    m = re.search(r'\(SONAME\)\s+Library soname: \[([^\]]+)\]', out)
    return m.group(1) if m else None

def check_exports(args):
    expected = read_symbol_list(args.symbols)
    vs = VersionScript(args.map)
    number = abi_number(args.include)
    bad = False
    with open(args.lib, 'rb') as f:
        magic = f.read(4)
    if magic == b'\x7fELF':
        syms = elf_exports(args.lib, args.nm)
        got = set(syms)
        soname = elf_soname(args.lib, args.readelf)
        if number is not None and soname != 'libopenetw.so.%d' % number:
            bad |= fail_list('FAIL: SONAME is %r, expected libopenetw.so.%d' % (soname, number), ['-'])
        wrong = []
        for name in sorted(got & set(expected)):
            version, default, _ = syms[name]
            if version != vs.symbols.get(name) or not default:
                wrong.append('%s has version %s%s, the map puts it in %s'
                             % (name, version, '' if default else ' (not default)', vs.symbols.get(name)))
        bad |= fail_list('FAIL: symbol versions:', wrong)
        what = 'ELF %s' % soname
    elif magic[:2] == b'MZ':
        pe = PEFile(args.lib)
        dllname, names = pe.exports()
        got = set(names)
        base = os.path.basename(args.lib)
        if number is not None and base.lower() != 'openetw-%d.dll' % number:
            bad |= fail_list('FAIL: the DLL is named %s, expected openetw-%d.dll' % (base, number), ['-'])
        if dllname is not None and dllname.lower() != base.lower():
            bad |= fail_list('FAIL: the export table names the DLL %r, the file is %s' % (dllname, base), ['-'])
        imports = pe.imports()
        bad |= fail_list('FAIL: %s depends on C++/compiler runtime DLLs (link them statically):' % base,
                         [d for d in imports if FORBIDDEN_DLL_IMPORTS.match(d)])
        what = 'PE %s (imports %s)' % (base, ', '.join(imports))
    else:
        raise CheckFailed('%s: neither ELF nor PE' % args.lib)
    bad |= fail_list('FAIL: exported by %s but not in %s (a symbol leaks: hidden visibility, '
                     'version script):' % (os.path.basename(args.lib), show(args.symbols)),
                     sorted(got - set(expected)))
    bad |= fail_list('FAIL: in %s but not exported by %s (missing definition or ETW_API):'
                     % (show(args.symbols), os.path.basename(args.lib)),
                     sorted(set(expected) - got))
    if bad:
        return 1
    log('OK: %s exports exactly the %d symbols of %s' % (what, len(got), show(args.symbols)))
    return 0
