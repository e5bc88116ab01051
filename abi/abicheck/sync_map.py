"""The sync-map generator of abi/update.sh: adds the newly declared ETW_API
functions to the open version node of abi/openetw.map and rewrites
abi/symbols.txt. It never removes a name: removing one breaks the ABI, so
that is left to a deliberate edit by hand."""

import os
import re

from .header_parser import parse_headers
from .paths import show
from .report import fail_list, log
from .version_script import VersionScript, symbol_list_text


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
