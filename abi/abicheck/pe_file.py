"""Just enough of the PE format to read what the exports check needs from
openetw-N.dll (its export table and imported DLLs), without binutils for
the target."""

import struct

from .report import CheckFailed


class PEFile:
    """A PE image read whole: its sections, data directories, export names
    and imported DLLs."""

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
