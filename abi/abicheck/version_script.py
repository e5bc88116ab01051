"""The GNU ld version script abi/openetw.map (version nodes and the names
each exports) and abi/symbols.txt generated from it: read by the headers,
exports and baseline checks, rewritten by sync-map, and altered by
tests/abi/altered_copy.py."""

import re

from .header_parser import IDENT, strip_comments


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

