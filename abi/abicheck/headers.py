"""The headers check: the ETW_API declarations of the public headers, the
names of abi/openetw.map and abi/symbols.txt are one set; every public
function is exported; openetw.h includes every header; the map is well
formed. Needs no build, so it is the first thing to fail on a header edit."""

import os
import re

from .header_parser import abi_number, parse_headers
from .paths import show
from .report import fail_list, log
from .version_script import VersionScript, read_symbol_list


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
