#!/usr/bin/env python3
"""The version numbers the docs give are the code's.

docs/SYSTEM_SESSIONS.md names the registry layout, the request protocol and
the region layout; src/host/protocol.hpp and src/engine/buffer_pool.hpp hold
them. A number changed in one place and not the other fails here, naming both.
tests/host/host_attack_test.cpp speaks the protocol through the public
library only, with its own copy of the number: checked here too.
usage: doc_numbers.py SOURCE_ROOT
"""
import re
import sys


def code_number(path, name):
    text = open(path, encoding='utf-8').read()
    m = re.search(r'inline constexpr std::uint32_t ' + name + r' = (\d+);', text)
    if not m:
        sys.exit(f'FAIL: {path} has no {name}')
    return int(m.group(1))


def doc_numbers(path, phrase):
    text = open(path, encoding='utf-8').read()
    found = [int(n) for n in re.findall(phrase + r' (\d+)', text)]
    if not found:
        sys.exit(f'FAIL: {path} never says "{phrase} N"')
    return found


def main():
    root = sys.argv[1]
    doc = f'{root}/docs/SYSTEM_SESSIONS.md'
    pairs = [
        ('registry layout', code_number(f'{root}/src/host/protocol.hpp', 'kRegistryLayout')),
        ('protocol', code_number(f'{root}/src/host/protocol.hpp', 'kProtocol')),
        ('region layout', code_number(f'{root}/src/engine/buffer_pool.hpp', 'kRegionLayout')),
    ]
    bad = []
    for phrase, value in pairs:
        for n in doc_numbers(doc, phrase):
            if n != value:
                bad.append(f'{doc} says "{phrase} {n}", the code has {value}')
    attack = f'{root}/tests/host/host_attack_test.cpp'
    m = re.search(r'constexpr std::uint32_t kProtocol = (\d+);', open(attack, encoding='utf-8').read())
    protocol = dict(pairs)['protocol']
    if not m or int(m.group(1)) != protocol:
        bad.append(f'{attack} sends protocol {m.group(1) if m else "(none)"}, the code has {protocol}')
    if bad:
        print('FAIL:\n  ' + '\n  '.join(bad))
        return 1
    print('ok: ' + ', '.join(f'{p} {v}' for p, v in pairs))
    return 0


if __name__ == '__main__':
    sys.exit(main())
