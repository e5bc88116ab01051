"""The baseline check and the abidw generator (libabigail, x86_64 Linux,
DWARF): the signatures of the built library and every type they reach equal
the committed abi/openetw.abi, and break nothing a released baseline in
abi/released/ promised. Only DWARF shows a changed parameter or return type,
which names, versions and layouts do not."""

import glob
import os
import re
import shutil
import subprocess
import tempfile

from .paths import SRCROOT, show
from .report import CheckFailed, fail_list, log
from .version_script import VersionScript, read_symbol_list

# The abidw options of the baseline. Changing them means regenerating it.
ABIDW_OPTIONS = ['--drop-private-types', '--exported-interfaces-only',
                 '--no-corpus-path', '--no-comp-dir-path', '--no-show-locs',
                 '--type-id-style', 'hash', '--no-elf-needed']


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


def run_abidw(lib, include_dir, out_path, readelf='readelf'):
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
    build_dir = os.path.dirname(os.path.abspath(lib))

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


def exported_symbols(xml):
    """The ELF symbols an abidw corpus lists."""
    return set(re.findall(r"<elf-symbol name='([^']+)'", xml))


def symbol_versions(xml):
    """[(name, version node)] of the ELF symbols of an abidw corpus, in order."""
    return re.findall(r"<elf-symbol name='([^']+)' version='([^']*)'", xml)


def described_symbols(xml):
    """The symbols an abidw corpus describes with their types (from DWARF)."""
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
    exported = exported_symbols(xml)
    undescribed = sorted((expected & exported) - described_symbols(xml))
    bad = fail_list('FAIL: abidw found no debug information for these exported symbols (stripped, or '
                    'built without -g?), so abidiff cannot check their types:', undescribed)
    log('abidw: %s -> %s (%d exported symbols, %d with types)'
        % (args.lib, current, len(exported), len(described_symbols(xml))))
    bad |= differs_from_committed(args, current)
    bad |= incompatible_with_released(args, xml, current)
    return 1 if bad else 0


def differs_from_committed(args, current):
    """Any difference from the committed baseline of this tree fails."""
    res = subprocess.run(['abidiff', '--harmless', args.baseline, current], capture_output=True, text=True)
    if res.returncode == 0:
        log('OK: abidiff %s: no change' % show(args.baseline))
        return False
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
    return True


def incompatible_with_released(args, xml, current):
    """Against each released baseline of the same SONAME: no incompatible
    change, symbol versions kept, nothing added to a node it sealed."""
    bad = False
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
        cur_versions = dict(symbol_versions(xml))
        moved = ['%s: %s -> %s' % (n, v, cur_versions.get(n))
                 for n, v in symbol_versions(rel_xml) if cur_versions.get(n) != v]
        rel_versions = dict(symbol_versions(rel_xml))
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
    return bad


def write_baseline(args):
    require_tools('abidw')
    xml = run_abidw(args.lib, args.include, args.output, args.readelf)
    expected = set(read_symbol_list(args.symbols))
    exported = exported_symbols(xml)
    fail_list('warning: in %s but not exported by %s (the exports check fails until they are '
              'defined):' % (show(args.symbols), args.lib), sorted(expected - exported))
    if fail_list('FAIL: no debug information for:', sorted((expected & exported) - described_symbols(xml))):
        return 1
    log('wrote %s' % show(args.output))
    return 0
