//! The enable properties' extended items read back: stacks and SIDs.
use openetw::{extended_item_sid, extended_item_stack, sys, Status};

fn item(ext_type: u32, data: &[u8]) -> sys::etw_extended_item {
    sys::etw_extended_item {
        ext_type: ext_type as u16,
        linkage: 0,
        item_size: (8 + (data.len() + 7) / 8 * 8) as u16,
        data_size: data.len() as u16,
        data: data.as_ptr(),
    }
}

#[test]
fn stacks_give_match_id_and_addresses() {
    let mut data = Vec::new();
    for v in [5u64, 0x10, 0x11, 0x12] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    let got = extended_item_stack(&item(sys::ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64, &data)).unwrap();
    assert_eq!(got, (5, vec![0x10, 0x11, 0x12]));
    let (_, narrow) = extended_item_stack(&item(sys::ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE32, &data)).unwrap();
    assert_eq!(narrow, vec![0x10, 0, 0x11, 0, 0x12, 0]);
    let bad = extended_item_stack(&item(sys::ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64, &data[..12])).unwrap_err();
    assert_eq!(bad.status(), Status(sys::ETW_ERROR_INVALID_DATA));
    assert!(bad.message().contains("12 bytes"), "{}", bad.message());
}

#[test]
fn sids_read_as_text() {
    let unix = [1u8, 2, 0, 0, 0, 0, 0, 22, 1, 0, 0, 0, 0xE8, 0x03, 0, 0];
    assert_eq!(extended_item_sid(&item(sys::ETW_EVENT_HEADER_EXT_TYPE_SID, &unix)).unwrap(), "S-1-22-1-1000");
    let other = extended_item_sid(&item(sys::ETW_EVENT_HEADER_EXT_TYPE_TS_ID, &unix)).unwrap_err();
    assert_eq!(other.status(), Status(sys::ETW_ERROR_INVALID_PARAMETER));
}
