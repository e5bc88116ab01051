"""Where the source tree and the committed abi/ files are, so that every
check has the same defaults and names files the same way in its messages."""

import os

ABI_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRCROOT = os.path.dirname(ABI_DIR)
DEFAULT_INCLUDE = os.path.join(SRCROOT, 'include')
DEFAULT_MAP = os.path.join(ABI_DIR, 'openetw.map')
DEFAULT_SYMBOLS = os.path.join(ABI_DIR, 'symbols.txt')
DEFAULT_BASELINE = os.path.join(ABI_DIR, 'openetw.abi')
DEFAULT_RELEASED = os.path.join(ABI_DIR, 'released')
DEFAULT_LAYOUT = os.path.join(ABI_DIR, 'layout.txt')


def show(path):
    """path relative to the source root when inside it, else absolute."""
    rel = os.path.relpath(path, SRCROOT)
    return os.path.abspath(path) if rel.startswith('..') else rel
