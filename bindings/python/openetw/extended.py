"""The extended data items the enable properties add, read from their bytes.

Record.extended and EventRecord.extended_data hold (ext_type, linkage,
item_size, data) tuples (EVENT_HEADER_EXTENDED_DATA_ITEM); these read the
data of a stack item (EVENT_EXTENDED_ITEM_STACK_TRACE64/32) and of a SID
item, as etw_extended_item_stack and etw_extended_item_sid_string do.
Record and EventRecord read them as attributes (ExtendedItemsMixin):
record.stack, .sid, .ts_id, .process_start_key, .event_key, each None when
the record has no such item.
"""
from __future__ import annotations

import struct

from typing import Optional

from . import _native

STACK_TRACE32 = _native.ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE32
STACK_TRACE64 = _native.ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64
SID = _native.ETW_EVENT_HEADER_EXT_TYPE_SID
TS_ID = _native.ETW_EVENT_HEADER_EXT_TYPE_TS_ID
EVENT_KEY = _native.ETW_EVENT_HEADER_EXT_TYPE_EVENT_KEY
PROCESS_START_KEY = _native.ETW_EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY


def stack(item) -> tuple[int, list[int]]:
    """(MatchId, addresses innermost first) of a stack item tuple.

    ValueError for an item of another type or data that is no stack's."""
    ext_type, data = item[0], bytes(item[-1])
    if ext_type not in (STACK_TRACE32, STACK_TRACE64):
        raise ValueError(f"the item is of type {ext_type}, not a stack (STACK_TRACE32 5 or STACK_TRACE64 6)")
    width = 8 if ext_type == STACK_TRACE64 else 4
    if len(data) < 8 or (len(data) - 8) % width:
        raise ValueError(f"the stack item's {len(data)} bytes are not a MatchId and whole {width}-byte addresses")
    count = (len(data) - 8) // width
    match_id, *addresses = struct.unpack(f"<Q{count}{'Q' if width == 8 else 'I'}", data)
    return match_id, addresses


def sid_string(item) -> str:
    """The SID of a SID item tuple as text: "S-1-22-1-1000" for a Unix user.

    ValueError for an item of another type or bytes that are no SID."""
    ext_type, data = item[0], bytes(item[-1])
    if ext_type != SID:
        raise ValueError(f"the item is of type {ext_type}, not a SID (2)")
    if len(data) < 8 or data[0] != 1 or data[1] > 15 or len(data) != 8 + 4 * data[1]:
        raise ValueError(f"the {len(data)} bytes are no SID (revision 1, at most 15 subauthorities, "
                         "8 bytes and 4 per subauthority)")
    authority = int.from_bytes(data[2:8], "big")
    text = f"S-1-{authority}" if authority < 1 << 32 else f"S-1-0x{authority:012X}"
    subs = struct.unpack(f"<{data[1]}I", data[8:])
    return text + "".join(f"-{s}" for s in subs)


def find(items, *ext_types):
    """The first item tuple of one of ext_types, or None."""
    for item in items:
        if item[0] in ext_types:
            return item
    return None


def _integer(items, ext_type: int, size: int) -> Optional[int]:
    item = find(items, ext_type)
    if item is None:
        return None
    data = bytes(item[-1])
    if len(data) != size:
        raise ValueError(f"the item of type {ext_type} holds {len(data)} bytes, not {size}")
    return int.from_bytes(data, "little")


class ExtendedItemsMixin:
    """What Record and EventRecord gain: the enable properties' items read
    back (EnableProperty in openetw.filters asks for them)."""

    def _extended_items(self) -> tuple:
        return self.extended

    @property
    def stack(self) -> Optional[list[int]]:
        """The STACK_TRACE64/32 item's return addresses, innermost first; None without one."""
        item = find(self._extended_items(), STACK_TRACE64, STACK_TRACE32)
        return None if item is None else stack(item)[1]

    @property
    def sid(self) -> Optional[str]:
        """The SID item as text ("S-1-22-1-<uid>" for a Unix user); None without one."""
        item = find(self._extended_items(), SID)
        return None if item is None else sid_string(item)

    @property
    def ts_id(self) -> Optional[int]:
        """The TS_ID item's 32-bit session id; None without one."""
        return _integer(self._extended_items(), TS_ID, 4)

    @property
    def process_start_key(self) -> Optional[int]:
        """The PROCESS_START_KEY item's 64 bits; None without one."""
        return _integer(self._extended_items(), PROCESS_START_KEY, 8)

    @property
    def event_key(self) -> Optional[int]:
        """The EVENT_KEY item's 64 bits; None without one."""
        return _integer(self._extended_items(), EVENT_KEY, 8)
