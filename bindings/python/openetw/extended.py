"""The extended data items the enable properties add, read from their bytes.

Record.extended and EventRecord.extended_data hold (ext_type, linkage,
item_size, data) tuples (EVENT_HEADER_EXTENDED_DATA_ITEM); these read the
data of a stack item (EVENT_EXTENDED_ITEM_STACK_TRACE64/32) and of a SID
item, as etw_extended_item_stack and etw_extended_item_sid_string do.
"""
from __future__ import annotations

import struct

from . import _native

STACK_TRACE32 = _native.ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE32
STACK_TRACE64 = _native.ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64
SID = _native.ETW_EVENT_HEADER_EXT_TYPE_SID


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
