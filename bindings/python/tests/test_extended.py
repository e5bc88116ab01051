"""Reading the enable properties' extended items (openetw.extended)."""
import struct

import pytest

from openetw import extended


def test_stack_items_give_match_id_and_addresses():
    data = struct.pack("<QQQQ", 5, 0x10, 0x11, 0x12)
    assert extended.stack((extended.STACK_TRACE64, 0, 8 + len(data), data)) == (5, [0x10, 0x11, 0x12])
    # The same bytes as 32-bit addresses are six of them.
    match_id, addresses = extended.stack((extended.STACK_TRACE32, 0, 8 + len(data), data))
    assert match_id == 5 and addresses == [0x10, 0, 0x11, 0, 0x12, 0]


def test_stack_refuses_other_items_and_partial_addresses():
    with pytest.raises(ValueError, match="not a stack"):
        extended.stack((extended.SID, 0, 24, b"\0" * 16))
    with pytest.raises(ValueError, match="12 bytes"):
        extended.stack((extended.STACK_TRACE64, 0, 24, b"\0" * 12))


def test_sid_string_names_unix_users_and_windows_accounts():
    unix = bytes([1, 2, 0, 0, 0, 0, 0, 22]) + struct.pack("<II", 1, 1000)
    assert extended.sid_string((extended.SID, 0, 24, unix)) == "S-1-22-1-1000"
    domain = bytes([1, 5, 0, 0, 0, 0, 0, 5]) + struct.pack("<5I", 21, 1, 2, 3, 500)
    assert extended.sid_string((extended.SID, 0, 36, domain)) == "S-1-5-21-1-2-3-500"
    with pytest.raises(ValueError, match="no SID"):
        extended.sid_string((extended.SID, 0, 24, unix[:12]))
    with pytest.raises(ValueError, match="not a SID"):
        extended.sid_string((extended.STACK_TRACE64, 0, 24, unix))
