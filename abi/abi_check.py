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

Exit status: 0 pass, 1 the check failed, 2 usage or environment error,
77 skipped (meson's convention).
"""

import argparse
import difflib
import glob
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
SRCROOT = os.path.dirname(HERE)
DEFAULT_INCLUDE = os.path.join(SRCROOT, 'include')
DEFAULT_MAP = os.path.join(HERE, 'openetw.map')
DEFAULT_SYMBOLS = os.path.join(HERE, 'symbols.txt')
DEFAULT_BASELINE = os.path.join(HERE, 'openetw.abi')
DEFAULT_RELEASED = os.path.join(HERE, 'released')
DEFAULT_LAYOUT = os.path.join(HERE, 'layout.txt')

# The abidw options of the baseline. Changing them means regenerating it.
ABIDW_OPTIONS = ['--drop-private-types', '--exported-interfaces-only',
                 '--no-corpus-path', '--no-comp-dir-path', '--no-show-locs',
                 '--type-id-style', 'hash', '--no-elf-needed']

# The C++ runtime DLLs openetw-N.dll must not depend on.
FORBIDDEN_DLL_IMPORTS = re.compile(r'^(libstdc\+\+|libgcc_s|libwinpthread|libc\+\+|libunwind)', re.I)


class CheckFailed(Exception):
    pass


def show(path):
    """path relative to the source root when inside it, else absolute."""
    rel = os.path.relpath(path, SRCROOT)
    return os.path.abspath(path) if rel.startswith('..') else rel


def log(msg=''):
    print(msg, flush=True)


def fail_list(title, items):
    if items:
        log(title)
        for item in items:
            log('    ' + item)
    return bool(items)


# --------------------------------------------------------------------------
# C header parsing (public headers only: C99, no K&R, no nested functions)
# --------------------------------------------------------------------------

def strip_comments(text):
    """Removes comments, keeps string and char literals and line breaks."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '/' and i + 1 < n and text[i + 1] == '*':
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j) or ' ')
            i = j
        elif c == '/' and i + 1 < n and text[i + 1] == '/':
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def strip_directives(text):
    """Removes preprocessor lines (with continuations)."""
    out, cont = [], False
    for line in text.split('\n'):
        if cont or line.lstrip().startswith('#'):
            cont = line.rstrip().endswith('\\')
            out.append('')
        else:
            out.append(line)
    return '\n'.join(out)


def remove_balanced(text, keyword):
    """Removes `keyword ( ... )` with balanced parentheses."""
    while True:
        m = re.search(r'\b' + keyword + r'\s*\(', text)
        if not m:
            return text
        depth, i = 0, m.end() - 1
        while i < len(text):
            if text[i] == '(':
                depth += 1
            elif text[i] == ')':
                depth -= 1
                if depth == 0:
                    break
            i += 1
        text = text[:m.start()] + ' ' + text[i + 1:]


def top_level_statements(code):
    """Splits C code into top-level statements.

    Yields (kind, text): kind 'decl' for statements ending in ';' at file
    scope, 'fundef' for function definitions (ending in '}').
    `extern "C" {` blocks are transparent.
    """
    code = re.sub(r'extern\s*"C"\s*\{', ' ', code)
    code = re.sub(r'\b(ETW_BEGIN_DECLS|ETW_END_DECLS)\b', ' ', code)
    depth, paren, start, i, n = 0, 0, 0, 0, len(code)
    head_end = None
    while i < n:
        c = code[i]
        if c in '"\'':
            j = i + 1
            while j < n and code[j] != c:
                j += 2 if code[j] == '\\' else 1
            i = j + 1
            continue
        if c == '(':
            paren += 1
        elif c == ')':
            paren -= 1
        elif c == '{':
            if depth == 0:
                head_end = i
            depth += 1
        elif c == '}':
            if depth == 0:          # the closing brace of an extern "C" block
                start = i + 1
            else:
                depth -= 1
                if depth == 0:
                    head = code[start:head_end].strip()
                    if re.search(r'\)\s*$', head) and not re.match(r'(typedef|struct|union|enum)\b', head):
                        yield 'fundef', code[start:i + 1].strip()
                        start = i + 1
        elif c == ';' and depth == 0 and paren == 0:
            text = code[start:i].strip()
            if text:
                yield 'decl', text
            start = i + 1
        i += 1
    rest = code[start:].strip()
    if rest:
        yield 'decl', rest


IDENT = r'[A-Za-z_]\w*'


def declared_name(decl):
    """The name a function or variable declaration declares, or None."""
    text = remove_balanced(decl, '__attribute__')
    text = remove_balanced(text, '__declspec')
    text = re.sub(r'\bETW_API\b', ' ', text)
    # function declarator: first '(' that follows an identifier that is
    # not an all-caps macro call; or (*name)(...) for a returned pointer.
    for m in re.finditer(r'\(', text):
        before = text[:m.start()].rstrip()
        after = text[m.end():].lstrip()
        if after.startswith('*'):
            inner = re.match(r'\*\s*(?:const\s+)?(' + IDENT + r')', after)
            if inner and not re.search(IDENT + r'$', before):
                return inner.group(1), 'function'
            if inner and re.search(r'\b(void|int|char|etw_\w+|u?int\d+_t|size_t)$', before):
                return inner.group(1), 'function'
        mm = re.search(r'(' + IDENT + r')$', before)
        if mm:
            name = mm.group(1)
            if name.isupper() and not re.search(r'[a-z]', name):
                continue                    # a macro such as ETW_DEPRECATED("...")
            if name in ('void', 'int', 'char', 'const', 'unsigned', 'signed', 'short', 'long'):
                continue
            return name, 'function'
        return None, 'function'
    m = re.search(r'(' + IDENT + r')\s*(\[[^\]]*\]\s*)*(=.*)?$', text.strip(), re.S)
    return (m.group(1) if m else None), 'variable'


class Header:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        with open(path, encoding='utf-8') as f:
            self.text = f.read()
        self.code = strip_directives(strip_comments(self.text))
        self.exported = []      # (name, kind, decl text)
        self.problems = []
        for kind, stmt in top_level_statements(self.code):
            flat = ' '.join(stmt.split())
            words = set(re.findall(IDENT, re.sub(r'\{.*\}', ' ', flat)))
            if kind == 'fundef':
                if 'static' not in words:
                    self.problems.append('%s: non-static function defined in a public header: %s'
                                         % (self.name, flat[:100]))
                continue
            if re.match(r'(typedef|struct|union|enum)\b', flat) and '{' in flat or flat.startswith('typedef'):
                continue
            if re.match(r'(struct|union|enum)\s+' + IDENT + r'$', flat):
                continue            # forward declaration
            if 'static' in words:
                continue
            name, what = declared_name(flat)
            if 'ETW_API' in words:
                if not name:
                    self.problems.append('%s: cannot tell the name declared by: %s' % (self.name, flat))
                else:
                    self.exported.append((name, what, flat))
            elif what == 'function' or 'extern' in words:
                self.problems.append('%s: %s %s is declared without ETW_API (every public function is '
                                     'exported; internal ones do not belong in include/)'
                                     % (self.name, what, name or flat[:80]))


def public_headers(include_dir):
    pub = os.path.join(include_dir, 'openetw')
    headers = sorted(glob.glob(os.path.join(pub, '*.h')))
    if not headers:
        raise CheckFailed('no public headers in %s' % pub)
    return headers


def parse_headers(include_dir):
    return [Header(h) for h in public_headers(include_dir)]


# --------------------------------------------------------------------------
# Version script and symbol list
# --------------------------------------------------------------------------

class VersionScript:
    """A GNU ld version script: nodes in order, each with its names."""

    def __init__(self, path):
        self.path = path
        with open(path, encoding='utf-8') as f:
            self.text = f.read()
        self.nodes = []         # [(name, [globals], parent)]
        self.symbols = {}       # name -> node
        self.problems = []
        self.has_local_star = False
        self.sealed = set(re.findall(r'(' + IDENT + r')\s*\{\s*/\*\s*sealed\b', self.text))
        code = strip_comments(self.text)
        code = re.sub(r'#[^\n]*', ' ', code)
        tokens = re.findall(r'[A-Za-z_.$][\w.$*?\[\]]*|[{}:;*]|\S', code)
        i = 0
        while i < len(tokens):
            name = tokens[i]
            if i + 1 >= len(tokens) or tokens[i + 1] != '{':
                self.problems.append('%s: expected a version node, found %r' % (path, name))
                break
            i += 2
            scope, names = 'global', []
            while i < len(tokens) and tokens[i] != '}':
                tok = tokens[i]
                if tok in ('global', 'local') and i + 1 < len(tokens) and tokens[i + 1] == ':':
                    scope = tok
                    i += 2
                    continue
                if tok == ';':
                    i += 1
                    continue
                if scope == 'local':
                    if tok == '*':
                        self.has_local_star = True
                elif re.search(r'[*?\[]', tok):
                    self.problems.append('%s: node %s: glob %r in global: every exported name is explicit'
                                         % (path, name, tok))
                else:
                    names.append(tok)
                    if tok in self.symbols:
                        self.problems.append('%s: %s is listed twice (%s and %s)'
                                             % (path, tok, self.symbols[tok], name))
                    self.symbols[tok] = name
                i += 1
            i += 1
            parent = None
            if i < len(tokens) and tokens[i] != ';':
                parent = tokens[i]
                i += 1
            if i < len(tokens) and tokens[i] == ';':
                i += 1
            self.nodes.append((name, names, parent))
        if not self.has_local_star:
            self.problems.append('%s: no "local: *;": everything else must stay hidden' % path)
        for k, (name, _, parent) in enumerate(self.nodes):
            if not re.match(r'OPENETW_\d+(\.\d+)*$', name):
                self.problems.append('%s: node %s: names are OPENETW_<abi>[.<minor>]' % (path, name))
            if k > 0 and parent != self.nodes[k - 1][0]:
                self.problems.append('%s: node %s must inherit the node before it (%s)'
                                     % (path, name, self.nodes[k - 1][0]))

    def names(self):
        return set(self.symbols)


def read_symbol_list(path):
    names = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                names.append(line)
    return names


def symbol_list_text(vs):
    lines = ['# The symbols libopenetw.so.1 and openetw-1.dll export, one a line, sorted.',
             '# Generated from abi/openetw.map by abi/update.sh: do not edit by hand.']
    lines += sorted(vs.names())
    return '\n'.join(lines) + '\n'


def abi_number(include_dir):
    path = os.path.join(include_dir, 'openetw', 'version.h')
    try:
        with open(path, encoding='utf-8') as f:
            m = re.search(r'#\s*define\s+OPENETW_ABI_VERSION\s+(\d+)', f.read())
            if m:
                return int(m.group(1))
    except OSError:
        pass
    return None


# --------------------------------------------------------------------------
# headers
# --------------------------------------------------------------------------

def check_headers(args):
    headers = parse_headers(args.include)
    vs = VersionScript(args.map)
    bad = False
    bad |= fail_list('FAIL: public header problems:', [p for h in headers for p in h.problems])
    bad |= fail_list('FAIL: version script problems:', vs.problems)

    declared = {}
    for h in headers:
        for name, _, _ in h.exported:
            if name in declared:
                bad |= fail_list('FAIL: declared twice:', ['%s (%s and %s)' % (name, declared[name], h.name)])
            declared[name] = h.name
    mapped = vs.names()
    bad |= fail_list('FAIL: declared with ETW_API but missing from %s (run abi/update.sh, '
                     'which adds them to the open version node):' % show(args.map),
                     sorted('%s  (%s)' % (n, declared[n]) for n in set(declared) - mapped))
    bad |= fail_list('FAIL: in %s but declared by no public header (removing or renaming a '
                     'public function breaks the ABI: see abi/README.md):' % show(args.map),
                     sorted('%s  (node %s)' % (n, vs.symbols[n]) for n in mapped - set(declared)))

    listed = read_symbol_list(args.symbols)
    if listed != sorted(set(listed)):
        bad |= fail_list('FAIL: %s is not sorted and unique (run abi/update.sh)' % args.symbols, ['...'])
    bad |= fail_list('FAIL: in the version script but not in %s (run abi/update.sh):'
                     % show(args.symbols), sorted(mapped - set(listed)))
    bad |= fail_list('FAIL: in %s but not in the version script:' % show(args.symbols),
                     sorted(set(listed) - mapped))

    number = abi_number(args.include)
    if number is None:
        bad |= fail_list('FAIL: OPENETW_ABI_VERSION not found in version.h', ['-'])
    elif vs.nodes and not vs.nodes[0][0] == 'OPENETW_%d' % number:
        bad |= fail_list('FAIL: the first version node must be OPENETW_%d (OPENETW_ABI_VERSION)' % number,
                         [vs.nodes[0][0]])

    umbrella = os.path.join(args.include, 'openetw', 'openetw.h')
    if os.path.exists(umbrella):
        with open(umbrella, encoding='utf-8') as f:
            included = set(re.findall(r'#\s*include\s*["<](?:openetw/)?([\w.]+)[">]', f.read()))
        missing = [h.name for h in headers if h.name != 'openetw.h' and h.name not in included
                   and not h.name.endswith('_compat.h')]
        bad |= fail_list('FAIL: openetw.h does not include:', missing)
    else:
        bad |= fail_list('FAIL: no umbrella header', [umbrella])

    if bad:
        return 1
    log('OK: %d exported declarations in %d headers == %s (%d names in %d node(s)) == %s'
        % (len(declared), len(headers), show(args.map), len(mapped), len(vs.nodes),
           show(args.symbols)))
    return 0


def sync_map(args):
    """Adds declared symbols missing from the map to its last node, under a
    comment naming their header; rewrites symbols.txt. Never removes."""
    headers = parse_headers(args.include)
    vs = VersionScript(args.map)
    if vs.problems:
        fail_list('FAIL: version script problems:', vs.problems)
        return 1
    problems = [p for h in headers for p in h.problems]
    if problems:
        fail_list('FAIL: public header problems:', problems)
        return 1
    declared = [(n, h.name) for h in headers for n, _, _ in h.exported]
    missing = [(n, hn) for n, hn in declared if n not in vs.symbols]
    text = vs.text
    if missing:
        last = vs.nodes[-1][0]
        if last in vs.sealed:
            log('FAIL: the last version node %s is sealed (released). Add a new node after it,' % last)
            log('      e.g. "OPENETW_%s { global: } %s;" at the end of the map, then run abi/update.sh '
                'again.' % (_next_node(last), last))
            return 1
        text = insert_into_node(text, last, missing, headers)
        with open(args.map, 'w', encoding='utf-8') as f:
            f.write(text)
        for n, hn in missing:
            log('added %s (%s) to node %s of %s' % (n, hn, last, show(args.map)))
        vs = VersionScript(args.map)
    undeclared = sorted(vs.names() - {n for n, _ in declared})
    new_list = symbol_list_text(vs)
    old_list = open(args.symbols, encoding='utf-8').read() if os.path.exists(args.symbols) else ''
    if new_list != old_list:
        with open(args.symbols, 'w', encoding='utf-8') as f:
            f.write(new_list)
        log('wrote %s (%d symbols)' % (show(args.symbols), len(vs.names())))
    if undeclared:
        fail_list('FAIL: in the version script but declared by no header. Removing or renaming a '
                  'public function breaks the ABI (abi/README.md); if that is really intended '
                  '(unreleased node, or a new ABI number), delete the lines from %s by hand:'
                  % show(args.map), undeclared)
        return 1
    return 0


def insert_into_node(text, node, missing, headers):
    """Inserts `name;` lines for missing [(name, header)] into node: after
    the last name of the same header in the node, else after a comment
    naming the header, else before `local:` (or the closing brace) under a
    new /* header */ comment."""
    m = re.search(r'\b' + re.escape(node) + r'\s*\{', text)
    close = text.find('}', m.end())
    if '\n' not in text[m.end():close]:        # a one-line node: "X { global: } Y;"
        text = text[:m.end()] + '\n  global:\n' + text[close:]
        close = text.find('}', m.end())
    body_start = text.index('\n', m.end()) + 1
    lines = text[body_start:close].split('\n')
    tail = lines.pop()                 # the text before '}' on its line
    names_of = {h.name: {n for n, _, _ in h.exported} for h in headers}
    for name, hn in missing:
        at = None
        for k, line in enumerate(lines):
            stripped = line.strip().rstrip(';').strip()
            if stripped in names_of.get(hn, ()) or (line.lstrip().startswith('/*') and hn in line):
                at = k + 1
        if at is None:
            at = next((k for k, line in enumerate(lines) if re.match(r'\s*local\s*:', line)), len(lines))
            lines.insert(at, '    /* %s */' % hn)
            at += 1
        lines.insert(at, '    %s;' % name)
    lines.append(tail)
    return text[:body_start] + '\n'.join(lines) + text[close:]


def _next_node(last):
    parts = last.split('_', 1)[1].split('.')
    if len(parts) == 1:
        parts.append('1')
    else:
        parts[-1] = str(int(parts[-1]) + 1)
    return '.'.join(parts)


# --------------------------------------------------------------------------
# exports
# --------------------------------------------------------------------------

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


class PEFile:
    """Just enough of the PE format: export names, imported DLLs."""

    def __init__(self, path):
        with open(path, 'rb') as f:
            self.data = f.read()
        d = self.data
        if d[:2] != b'MZ':
            raise CheckFailed('%s is not a PE file' % path)
        pe = struct.unpack_from('<I', d, 0x3c)[0]
        if d[pe:pe + 4] != b'PE\0\0':
            raise CheckFailed('%s: no PE signature' % path)
        self.machine, nsect, _, _, _, opt_size, self.characteristics = struct.unpack_from('<HHIIIHH', d, pe + 4)
        opt = pe + 24
        magic = struct.unpack_from('<H', d, opt)[0]
        if magic == 0x20b:
            dd = opt + 112
        elif magic == 0x10b:
            dd = opt + 96
        else:
            raise CheckFailed('%s: unknown optional header magic %#x' % (path, magic))
        ndirs = struct.unpack_from('<I', d, dd - 4)[0]
        self.dirs = [struct.unpack_from('<II', d, dd + 8 * k) for k in range(min(ndirs, 16))]
        self.sections = []
        sec = opt + opt_size
        for k in range(nsect):
            name, vsize, vaddr, rsize, raddr = struct.unpack_from('<8sIIII', d, sec + 40 * k)
            self.sections.append((vaddr, max(vsize, rsize), raddr, name.rstrip(b'\0').decode()))

    def off(self, rva):
        for vaddr, size, raddr, _ in self.sections:
            if vaddr <= rva < vaddr + size:
                return rva - vaddr + raddr
        raise CheckFailed('RVA %#x outside every section' % rva)

    def cstr(self, rva):
        o = self.off(rva)
        return self.data[o:self.data.index(b'\0', o)].decode('ascii', 'replace')

    def exports(self):
        rva, size = self.dirs[0]
        if not rva:
            return None, []
        (_, _, _, _, name_rva, _, _, nnames, _, names_rva, _) = struct.unpack_from('<IIHHIIIIIII', self.data,
                                                                                  self.off(rva))
        names = []
        for k in range(nnames):
            names.append(self.cstr(struct.unpack_from('<I', self.data, self.off(names_rva) + 4 * k)[0]))
        return self.cstr(name_rva), names

    def imports(self):
        rva, _ = self.dirs[1] if len(self.dirs) > 1 else (0, 0)
        dlls = []
        if not rva:
            return dlls
        o = self.off(rva)
        while True:
            desc = struct.unpack_from('<IIIII', self.data, o)
            if not any(desc):
                break
            dlls.append(self.cstr(desc[3]))
            o += 20
        return dlls


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


# --------------------------------------------------------------------------
# baseline (libabigail)
# --------------------------------------------------------------------------

def require_tools(*tools):
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        raise CheckFailed('%s not found: install abigail-tools (Debian: apt-get install abigail-tools). '
                          'The ABI gate does not pass without them.' % ', '.join(missing))


def has_dwarf(lib, readelf):
    out = subprocess.run([readelf, '-S', '-W', lib], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.search(r'\]\s+(\.debug_info|\.zdebug_info)\s+\S+\s+\S+\s+\S+\s+([0-9a-f]+)', line)
        if m and int(m.group(2), 16) > 0:
            return True
    return False


def run_abidw(lib, include_dir, out_path, readelf='readelf', build_dir=None):
    """abidw of lib restricted to the public headers, with paths made
    relative to the source root so the baseline does not depend on where
    the build directory is."""
    if not has_dwarf(lib, readelf):
        raise CheckFailed('%s has no DWARF debug information (.debug_info): abidw would see only symbol '
                          'names and abidiff would pass silently. Build with debug info (the default '
                          'buildtype debugoptimized, or -g) and do not strip.' % lib)
    cmd = ['abidw', '--headers-dir', os.path.join(include_dir, 'openetw')] + ABIDW_OPTIONS + [lib]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise CheckFailed('abidw failed (%d): %s\n%s' % (res.returncode, ' '.join(cmd), res.stderr))
    xml = res.stdout
    build_dir = build_dir or os.path.dirname(os.path.abspath(lib))

    def relative(m):
        p = m.group(2)
        full = os.path.normpath(p if os.path.isabs(p) else os.path.join(build_dir, p))
        rel = os.path.relpath(full, SRCROOT)
        if rel.startswith('..'):
            rel = os.path.basename(full)
        return m.group(1) + rel + "'"
    xml = re.sub(r"(<abi-instr [^>]*?path=')([^']*)'", relative, xml)
    with open(out_path, 'w', encoding='utf-8') as f:
        f.write(xml)
    return xml


def described_symbols(xml):
    return set(re.findall(r"<(?:function|var)-decl [^>]*elf-symbol-id='([^'@]+)@", xml))


def check_baseline(args):
    require_tools('abidw', 'abidiff')
    if not os.path.exists(args.baseline):
        log('FAIL: no baseline %s: run abi/update.sh and commit it' % args.baseline)
        return 1
    out_dir = args.out_dir or tempfile.mkdtemp(prefix='openetw-abi-')
    os.makedirs(out_dir, exist_ok=True)
    current = os.path.join(out_dir, 'openetw.current.abi')
    xml = run_abidw(args.lib, args.include, current, args.readelf)
    expected = set(read_symbol_list(args.symbols))
    exported = set(re.findall(r"<elf-symbol name='([^']+)'", xml))
    undescribed = sorted((expected & exported) - described_symbols(xml))
    bad = fail_list('FAIL: abidw found no debug information for these exported symbols (stripped, or '
                    'built without -g?), so abidiff cannot check their types:', undescribed)
    log('abidw: %s -> %s (%d exported symbols, %d with types)'
        % (args.lib, current, len(exported), len(described_symbols(xml))))
    # 1. the committed baseline of this tree: any difference fails.
    res = subprocess.run(['abidiff', '--harmless', args.baseline, current], capture_output=True, text=True)
    if res.returncode != 0:
        bad = True
        incompatible = res.returncode & 8
        log('FAIL: the ABI of %s differs from the committed baseline %s (abidiff exit %d%s):'
            % (os.path.basename(args.lib), show(args.baseline), res.returncode,
               ', INCOMPATIBLE' if incompatible else ''))
        log(res.stdout + res.stderr)
        if incompatible:
            log('This change breaks programs built against the baseline. Either restore the old '
                'declaration (add a new function instead, e.g. a _v2), or follow "Breaking the ABI" '
                'in abi/README.md.')
        log('If the change is intended and compatible, run abi/update.sh and commit abi/ in the same '
            'commit as include/.')
    else:
        log('OK: abidiff %s: no change' % show(args.baseline))
    # 2. released baselines: no incompatible change, symbol versions kept.
    soname = re.search(r"soname='([^']*)'", xml)
    for released in sorted(glob.glob(os.path.join(args.released, '*.abi'))):
        with open(released, encoding='utf-8') as f:
            rel_xml = f.read()
        rel_soname = re.search(r"soname='([^']*)'", rel_xml)
        if soname and rel_soname and soname.group(1) != rel_soname.group(1):
            log('skip %s: SONAME %s (this library is %s)' % (released, rel_soname.group(1), soname.group(1)))
            continue
        cmd = ['abidiff']
        suppressions = os.path.join(args.released, 'suppressions.ini')
        if os.path.exists(suppressions):
            cmd += ['--suppressions', suppressions]
        res = subprocess.run(cmd + [released, current], capture_output=True, text=True)
        # Additions are compatible; anything removed or changed is not
        # (abidiff's exit status marks only some of those incompatible).
        removed_or_changed = sum(int(n) for line in res.stdout.splitlines() if 'changes summary:' in line
                                 for n in re.findall(r'(\d+) (?:Removed|Changed)\b', line))
        cur_versions = dict(re.findall(r"<elf-symbol name='([^']+)' version='([^']*)'", xml))
        moved = ['%s: %s -> %s' % (n, v, cur_versions.get(n))
                 for n, v in re.findall(r"<elf-symbol name='([^']+)' version='([^']*)'", rel_xml)
                 if cur_versions.get(n) != v]
        rel_versions = dict(re.findall(r"<elf-symbol name='([^']+)' version='([^']*)'", rel_xml))
        sealed = VersionScript(args.map).sealed
        moved += ['%s: added to %s, which %s already shipped sealed' % (n, v, os.path.basename(released))
                  for n, v in sorted(cur_versions.items())
                  if n not in rel_versions and v in sealed and v in set(rel_versions.values())]
        if res.returncode & 8 or removed_or_changed or moved:
            bad = True
            log('FAIL: incompatible with the released ABI %s:' % show(released))
            log(res.stdout + res.stderr)
            fail_list('symbols removed, moved to another version node, or added to a sealed one:', moved)
        else:
            log('OK: compatible with released %s' % show(released))
    return 1 if bad else 0


def write_baseline(args):
    require_tools('abidw')
    xml = run_abidw(args.lib, args.include, args.output, args.readelf)
    expected = set(read_symbol_list(args.symbols))
    exported = set(re.findall(r"<elf-symbol name='([^']+)'", xml))
    if fail_list('warning: in %s but not exported by %s (the exports check fails until they are '
                 'defined):' % (show(args.symbols), args.lib), sorted(expected - exported)):
        pass
    if fail_list('FAIL: no debug information for:', sorted((expected & exported) - described_symbols(xml))):
        return 1
    log('wrote %s' % show(args.output))
    return 0


# --------------------------------------------------------------------------
# layout
# --------------------------------------------------------------------------

def preprocess_public(cc, include_dir, extra=()):
    """The public headers as the target compiler sees them, only the lines
    that come from include/openetw (conditional members resolved)."""
    headers = public_headers(include_dir)
    src = ''.join('#include <openetw/%s>\n' % os.path.basename(h) for h in headers)
    res = subprocess.run(cc + ['-E', '-std=c99', '-I', include_dir] + list(extra) + ['-x', 'c', '-'],
                         input=src, capture_output=True, text=True)
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


def compute_layout(cc, include_dir, extra=()):
    code = preprocess_public(cc, include_dir, extra)
    structs = parse_structs(code)
    values, labels = [], []
    for expr, name, fields in structs:
        values += ['sizeof(%s)' % expr, '__alignof__(%s)' % expr]
        labels.append(('struct', name, None))
        for field in fields:
            values += ['offsetof(%s, %s)' % (expr, field), 'sizeof(((%s *)0)->%s)' % (expr, field)]
            labels.append(('field', name, field))
    src = '#include <stddef.h>\n'
    src += ''.join('#include <openetw/%s>\n' % os.path.basename(h) for h in public_headers(include_dir))
    # every value + 1, so that the array never holds a zero the compiler
    # could fold into a .zero directive
    src += 'extern const unsigned int openetw_layout_probe[];\n'
    src += 'const unsigned int openetw_layout_probe[] = {\n%s\n};\n' % ',\n'.join(
        '    (unsigned int)(%s) + 1u' % v for v in values) if values else ''
    res = subprocess.run(cc + ['-S', '-O0', '-std=c99', '-I', include_dir] + list(extra)
                         + ['-x', 'c', '-', '-o', '-'], input=src, capture_output=True, text=True)
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
            mm = re.match(r'\.(long|4byte|int)\s+(\d+)$', line)
            if mm:
                nums.append(int(mm.group(2)) - 1)
                if len(nums) == len(values):
                    break
            elif line and not line.startswith(('.', '#', '/')):
                break
        if len(nums) != len(values):
            raise CheckFailed('layout probe: %d values expected, %d found' % (len(values), len(nums)))
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


# --------------------------------------------------------------------------
# compile
# --------------------------------------------------------------------------

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


# --------------------------------------------------------------------------

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
    handler = {'headers': check_headers, 'sync-map': sync_map, 'exports': check_exports,
               'baseline': check_baseline, 'abidw': write_baseline, 'layout': check_layout,
               'dump-layout': dump_layout, 'compile': check_compile}[args.command]
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
