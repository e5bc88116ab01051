"""The layout check and the dump-layout generator: the size, alignment and
every field offset and size of every public struct, as the target compiler
lays them out, equal the committed abi/layout.txt section of the target.
The compiler computes them (it is the authority, for cross targets too);
the assembly of a probe carries them out, so nothing needs to run."""

import difflib
import os
import re
import subprocess

from .header_parser import IDENT, public_headers, top_level_statements
from .paths import show
from .report import SKIP, CheckFailed, log


def include_all(include_dir):
    """C source including every public header."""
    return ''.join('#include <openetw/%s>\n' % os.path.basename(h) for h in public_headers(include_dir))


def preprocess_public(cc, include_dir):
    """The public headers as the target compiler sees them, only the lines
    that come from include/openetw (conditional members resolved)."""
    res = subprocess.run(cc + ['-E', '-std=c99', '-I', include_dir, '-x', 'c', '-'],
                         input=include_all(include_dir), capture_output=True, text=True)
    if res.returncode != 0:
        raise CheckFailed('preprocessing the public headers failed:\n' + res.stderr)
    pub = os.path.realpath(os.path.join(include_dir, 'openetw'))
    keep, out = False, []
    for line in res.stdout.splitlines():
        m = re.match(r'#\s*\d+\s+"([^"]*)"', line)
        if m:
            keep = os.path.realpath(m.group(1)).startswith(pub + os.sep)
            continue
        if keep and not line.startswith('#'):
            out.append(line)
    return '\n'.join(out)


def parse_structs(code):
    """[(type expression, display name, [field names])] of every struct or
    union defined in code, in order."""
    structs = []
    for kind, stmt in top_level_statements(code):
        if kind != 'decl':
            continue
        flat = ' '.join(stmt.split())
        m = re.match(r'(typedef\s+)?(struct|union)\s*(' + IDENT + r')?\s*\{(.*)\}\s*(' + IDENT + r')?\s*$', flat)
        if not m:
            continue
        is_typedef, tag_kind, tag, body, alias = m.groups()
        if is_typedef and alias:
            expr, name = alias, alias
        elif tag:
            expr, name = '%s %s' % (tag_kind, tag), tag
        else:
            continue
        fields = []
        for fkind, fstmt in top_level_statements(body):
            f = ' '.join(fstmt.split())
            if not f:
                continue
            f = re.sub(r'\{.*\}', ' ', f)       # nested struct body
            if ':' in f:
                raise CheckFailed('%s: bit-field %r: public structs have no bit-fields' % (name, f))
            fp = re.search(r'\(\s*\*\s*(?:const\s+)?(' + IDENT + r')\s*\)\s*\(', f)
            if fp:                               # a function pointer member
                fields.append(fp.group(1))
                continue
            for declarator in f.split(','):
                dm = re.search(r'(' + IDENT + r')\s*(\[[^\]]*\]\s*)*$', declarator.strip())
                if dm:
                    fields.append(dm.group(1))
                else:
                    raise CheckFailed('%s: cannot tell the member name in %r' % (name, f))
        structs.append((expr, name, fields))
    return structs


def probe_values(cc, include_dir, values):
    """The value of each C constant expression in values, as compiler cc
    computes it: compiled into an array, read back from the assembly."""
    src = '#include <stddef.h>\n' + include_all(include_dir)
    # every value + 1, so that the array never holds a zero the compiler
    # could fold into a .zero directive
    src += 'extern const unsigned int openetw_layout_probe[];\n'
    src += 'const unsigned int openetw_layout_probe[] = {\n%s\n};\n' % ',\n'.join(
        '    (unsigned int)(%s) + 1u' % v for v in values) if values else ''
    res = subprocess.run(cc + ['-S', '-O0', '-std=c99', '-I', include_dir, '-x', 'c', '-', '-o', '-'],
                         input=src, capture_output=True, text=True)
    if res.returncode != 0:
        raise CheckFailed('compiling the layout probe failed:\n%s\n%s' % (res.stderr, src))
    nums = []
    if values:
        asm = res.stdout
        m = re.search(r'^_?openetw_layout_probe:\s*$', asm, re.M)
        if not m:
            raise CheckFailed('layout probe: label not found in the assembly')
        for line in asm[m.end():].splitlines():
            line = line.strip()
            mm = re.match(r'\.(long|4byte|int)\s+(\d+)\s*(?:#.*)?$', line)  # clang: a comment after
            if mm:
                nums.append(int(mm.group(2)) - 1)
                if len(nums) == len(values):
                    break
            elif line and not line.startswith(('.', '#', '/')):
                break
        if len(nums) != len(values):
            raise CheckFailed('layout probe: %d values expected, %d found' % (len(values), len(nums)))
    return nums


def compute_layout(cc, include_dir):
    """The lines of a layout.txt section, as compiler cc lays the structs out."""
    values, labels = [], []
    for expr, name, fields in parse_structs(preprocess_public(cc, include_dir)):
        values += ['sizeof(%s)' % expr, '__alignof__(%s)' % expr]
        labels.append(('struct', name, None))
        for field in fields:
            values += ['offsetof(%s, %s)' % (expr, field), 'sizeof(((%s *)0)->%s)' % (expr, field)]
            labels.append(('field', name, field))
    nums = probe_values(cc, include_dir, values)
    lines, k = [], 0
    for what, name, field in labels:
        a, b = nums[k], nums[k + 1]
        k += 2
        if what == 'struct':
            lines.append('%s size %d align %d' % (name, a, b))
        else:
            lines.append('%s.%s offset %d size %d' % (name, field, a, b))
    return lines


def read_layout_file(path):
    sections, current = {}, None
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            m = re.match(r'\[(\S+)\]$', line)
            if m:
                current = sections.setdefault(m.group(1), [])
            elif current is not None:
                current.append(' '.join(line.split()))
    return sections


def write_layout_file(path, sections):
    out = ['# Size, alignment and field offsets/sizes of every public struct, per target',
           '# (the section name is Meson\'s host cpu_family; x86_64 holds for Linux and',
           '# Windows alike, x86 is i686-w64-mingw32). Generated by abi/update.sh and',
           '# checked by `meson test --suite abi` (abi-layout). Do not edit by hand.']
    for name in sorted(sections):
        out.append('')
        out.append('[%s]' % name)
        out += sections[name]
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(out) + '\n')


def check_layout(args):
    sections = read_layout_file(args.expect)
    if args.section not in sections:
        log('SKIP: %s has no [%s] section' % (args.expect, args.section))
        return SKIP
    got = compute_layout(args.cc, args.include)
    want = sections[args.section]
    if got != want:
        log('FAIL: public struct layouts on %s differ from %s [%s]:'
            % (' '.join(args.cc), show(args.expect), args.section))
        for line in difflib.unified_diff(want, got, 'committed', 'built', lineterm='', n=1):
            log('    ' + line)
        log('A changed size, offset or field breaks every program that uses the struct. If this is an '
            'intended change of an unreleased struct, run abi/update.sh (see abi/README.md).')
        return 1
    nstructs = sum(1 for line in got if '.' not in line.split()[0])
    log('OK: %d structs, %d fields: layouts equal %s [%s]'
        % (nstructs, len(got) - nstructs, show(args.expect), args.section))
    return 0


def dump_layout(args):
    sections = read_layout_file(args.output) if os.path.exists(args.output) else {}
    sections[args.section] = compute_layout(args.cc, args.include)
    write_layout_file(args.output, sections)
    log('wrote [%s] of %s (%d lines)' % (args.section, show(args.output),
                                        len(sections[args.section])))
    return 0
