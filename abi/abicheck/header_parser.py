"""Parsing of the public headers (C99, no K&R, no nested functions): which
names each declares with ETW_API, and what it must not contain. Shared by
the checks that compare the declarations with the map, the library and the
compilers, and by tests/abi/altered_copy.py, which alters the declarations."""

import glob
import os
import re

from .report import CheckFailed


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
    """One public header: its code without comments and directives, the
    names it exports [(name, 'function' or 'variable', declaration)], and
    what a public header must not contain."""

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
    """A Header for each include_dir/openetw/*.h, by name."""
    return [Header(h) for h in public_headers(include_dir)]


def abi_number(include_dir):
    """OPENETW_ABI_VERSION of include/openetw/version.h, or None."""
    path = os.path.join(include_dir, 'openetw', 'version.h')
    try:
        with open(path, encoding='utf-8') as f:
            m = re.search(r'#\s*define\s+OPENETW_ABI_VERSION\s+(\d+)', f.read())
            if m:
                return int(m.group(1))
    except OSError:
        pass
    return None

