#!/usr/bin/env python3
"""The layer rules of docs/CONVENTIONS.md, checked on every include of src/.

Data flows one way: the engine never includes the host, format and decode
know bytes only, platform and base include nothing above them. A quoted
include of a layer a file's folder may not use fails here, with the file,
the line and the rule. Every OS call goes through src/platform, so an OS
header (<unistd.h>, <sys/...>, <windows.h>...) included anywhere else fails
too. `--self-test` plants a violation of each rule in a copy of the
engine's header and fails unless the check catches both (the check can fail).
usage: check_layers.py SOURCE_ROOT [--self-test]
"""
import os
import re
import sys

# folder of src/ -> the folders of src/ its files must not include
FORBIDDEN = {
    'base': {'platform', 'format', 'kernel', 'engine', 'export', 'host', 'decode', 'consumer', 'api', 'win32', 'otlp'},
    'platform': {'format', 'kernel', 'engine', 'export', 'host', 'decode', 'consumer', 'api', 'win32', 'otlp'},
    'format': {'kernel', 'engine', 'export', 'host', 'decode', 'consumer', 'api', 'win32', 'otlp'},
    'kernel': {'engine', 'export', 'host', 'decode', 'consumer', 'api', 'win32', 'otlp'},
    'decode': {'kernel', 'engine', 'export', 'host', 'consumer', 'api', 'win32', 'otlp'},
    'engine': {'export', 'host', 'decode', 'consumer', 'api', 'win32', 'otlp'},
    'export': {'kernel', 'host', 'decode', 'consumer', 'api', 'win32', 'otlp'},
    'host': {'decode', 'consumer', 'api', 'win32', 'otlp'},
    'consumer': {'api', 'win32', 'otlp'},
    'api': {'win32', 'otlp'},
    # the tools' OTLP export: over the public headers and base's header-only parts
    'otlp': {'platform', 'format', 'kernel', 'engine', 'export', 'host', 'decode', 'consumer', 'api', 'win32'},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z0-9_]+)/[^"]+"', re.M)
# The headers of the OS's own interface (POSIX, Linux, Win32), as opposed to
# the C and C++ standard libraries; only src/platform may include them.
OS_HEADER = re.compile(
    r'^\s*#\s*include\s*<((?:unistd|windows|fcntl|pthread|dlfcn|dirent|poll|sched|semaphore|winsock2|ws2tcpip)\.h'
    r'|(?:sys|linux)/[^>]+)>', re.M)


def violations(files):
    """files: {path relative to src/: text} -> list of messages."""
    out = []
    for path, text in sorted(files.items()):
        layer = path.split('/', 1)[0]
        banned = FORBIDDEN.get(layer, set())
        for m in INCLUDE.finditer(text):
            if m.group(1) in banned:
                line = text.count('\n', 0, m.start()) + 1
                out.append(f'src/{path}:{line}: src/{layer} must not include src/{m.group(1)} ("{m.group(0).strip()}")')
        if layer == 'platform':
            continue
        for m in OS_HEADER.finditer(text):
            line = text.count('\n', 0, m.start()) + 1
            out.append(f'src/{path}:{line}: only src/platform includes OS headers ("{m.group(0).strip()}")')
    return out


def read_tree(src):
    files = {}
    for folder, _, names in os.walk(src):
        for name in names:
            if name.endswith(('.cpp', '.hpp', '.h', '.c')):
                full = os.path.join(folder, name)
                with open(full, encoding='utf-8') as f:
                    files[os.path.relpath(full, src)] = f.read()
    return files


def main():
    src = os.path.join(sys.argv[1], 'src')
    files = read_tree(src)
    if '--self-test' in sys.argv:
        planted = dict(files)
        planted['engine/engine.hpp'] = '#include "host/hosting.hpp"\n#include <sys/mman.h>\n' + files['engine/engine.hpp']
        planted['kernel/rundown.hpp'] = '#include "api/guard.hpp"\n' + files['kernel/rundown.hpp']
        found = violations(planted)
        for path, line, what in (('engine/engine.hpp', '1', 'an include of src/host'),
                                 ('engine/engine.hpp', '2', 'an include of <sys/mman.h>'),
                                 ('kernel/rundown.hpp', '1', 'an include of src/api')):
            caught = [v for v in found if v.startswith(f'src/{path}:{line}:')]
            if not caught:
                print(f'FAIL: {what} planted in src/{path} was not caught')
                return 1
            print('ok: the planted violation is caught: ' + caught[0])
        return 0
    found = violations(files)
    if found:
        print('FAIL: includes against the layer rules (docs/CONVENTIONS.md):\n  ' + '\n  '.join(found))
        return 1
    print(f'ok: {len(files)} files of src/ keep the layer rules')
    return 0


if __name__ == '__main__':
    sys.exit(main())
