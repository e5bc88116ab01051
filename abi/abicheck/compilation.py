"""The compile check: each public header on its own (included twice) and
all of them together compile as C99 and as C++11/C++20 with -pedantic
-Werror, with and without OPENETW_STATIC, and every exported function has C
linkage in C++. Users build with flags we do not choose; a header that
warns breaks their -Werror builds."""

import os
import subprocess
import tempfile

from .header_parser import parse_headers
from .report import log


C_FLAGS = ['-std=c99', '-pedantic', '-Werror', '-Wall', '-Wextra', '-Wstrict-prototypes',
           '-Wmissing-prototypes', '-Wundef', '-Wshadow', '-Wcast-qual', '-Wconversion',
           '-Wdeclaration-after-statement', '-Wpadded']
CXX_STANDARDS = ['c++11', 'c++20']
CXX_FLAGS = ['-pedantic', '-Werror', '-Wall', '-Wextra', '-Wundef', '-Wshadow', '-Wold-style-cast',
             '-Wzero-as-null-pointer-constant', '-Wcast-qual', '-Wconversion', '-Wpadded']
MODES = [('', []), ('static', ['-DOPENETW_STATIC'])]


def compile_snippet(cc, flags, src, lang, include_dir, workdir, label):
    path = os.path.join(workdir, 'probe.' + ('c' if lang == 'c' else 'cpp'))
    with open(path, 'w', encoding='utf-8') as f:
        f.write(src)
    cmd = cc + flags + ['-I', include_dir, '-c', path, '-o', os.path.join(workdir, 'probe.o')]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        log('FAIL: %s\n    %s\n%s' % (label, ' '.join(cmd), res.stdout + res.stderr))
        return False
    return True


def check_compile(args):
    headers = parse_headers(args.include)
    bad = False
    count = 0
    with tempfile.TemporaryDirectory(prefix='openetw-hdr-') as work:
        for h in headers:
            inc = '#include <openetw/%s>\n' % h.name
            # each header on its own, included twice (include guards)
            c_src = inc + inc + 'int openetw_probe(void);\nint openetw_probe(void) { return 0; }\n'
            # C linkage: redeclaring each function inside extern "C" is an error
            # if the header gave it C++ linkage.
            redecl = ''.join('%s;\n' % decl for _, _, decl in h.exported)
            cxx_src = inc + inc + ('extern "C" {\n%s}\n' % redecl if redecl else '') + \
                'int openetw_probe();\nint openetw_probe() { return 0; }\n'
            for mode, defs in MODES:
                label = '%s as C99 %s' % (h.name, mode)
                bad |= not compile_snippet(args.cc, C_FLAGS + defs, c_src, 'c', args.include, work, label)
                count += 1
                for std in CXX_STANDARDS:
                    label = '%s as %s %s' % (h.name, std, mode)
                    bad |= not compile_snippet(args.cxx, ['-std=' + std] + CXX_FLAGS + defs, cxx_src, 'cpp',
                                               args.include, work, label)
                    count += 1
        # all headers together, in reverse order (no hidden order dependency)
        allinc = ''.join('#include <openetw/%s>\n' % h.name for h in reversed(headers))
        bad |= not compile_snippet(args.cc, C_FLAGS, allinc + 'int openetw_probe(void);\n', 'c',
                                   args.include, work, 'all headers as C99')
        bad |= not compile_snippet(args.cxx, ['-std=c++20'] + CXX_FLAGS, allinc, 'cpp', args.include, work,
                                   'all headers as C++20')
        count += 2
    if bad:
        return 1
    log('OK: %d compilations of %d public headers (C99 -pedantic -Werror; C++%s -pedantic -Werror; '
        'each alone and twice; with and without OPENETW_STATIC)'
        % (count, len(headers), '/'.join(s[3:] for s in CXX_STANDARDS)))
    return 0
