//! Tests of the safe API over properties.h.
use openetw::{ClockType, Guid, KernelFlags, LogFileMode, Properties, Status};

fn sequential() -> Properties {
    let mut p = Properties::new("Rs Sequential").unwrap();
    p.set_log_file_name(Some("/tmp/rs.etl")).unwrap();
    p.set_log_file_mode(LogFileMode::SEQUENTIAL).unwrap();
    p
}

#[test]
fn defaults_follow_the_header() {
    let p = Properties::new("Rs Defaults").unwrap();
    assert_eq!(p.session_name(), "Rs Defaults");
    assert_eq!(p.log_file_name(), None);
    assert_eq!(p.buffer_size(), openetw::sys::ETW_DEFAULT_BUFFER_SIZE_KB);
    assert_eq!(p.clock_type(), ClockType::QPC);
    assert_eq!(p.log_file_mode(), LogFileMode::NONE);
    assert_eq!(p.guid(), Guid::NIL);
    assert_eq!((p.events_lost(), p.historical_context()), (0, 0));
}

#[test]
fn block_round_trips() {
    let mut p = sequential();
    p.set_buffer_size(8).unwrap();
    let block = p.to_block();
    assert_eq!(block.len(), 120 + 2 * 14 + 2 * 12);
    assert_eq!(block.len(), p.block_size());
    let back = Properties::from_block(&block).unwrap();
    assert_eq!(back.session_name(), "Rs Sequential");
    assert_eq!(back.log_file_name(), Some("/tmp/rs.etl"));
    assert_eq!(back.buffer_size(), 8);
    assert_eq!(back.to_block(), block);
}

#[test]
fn errors_carry_status_and_message() {
    let mut p = Properties::new("Rs Errors").unwrap();
    let e = p.set_buffer_size(3).unwrap_err();
    assert_eq!(e.status(), Status::INVALID_PARAMETER);
    assert_eq!(e.status().0, 87);
    assert_eq!(e.status().name(), "ETW_ERROR_INVALID_PARAMETER");
    assert!(e.message().contains("BufferSize 3"), "{e}");
    assert!(e.to_string().contains("ETW_ERROR_INVALID_PARAMETER(87)"), "{e}");
    assert_eq!(p.buffer_size(), 64, "a failing setter leaves the object unchanged");
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(e);
    assert!(boxed.to_string().contains("BufferSize"));
}

#[test]
fn bad_blocks_are_refused() {
    let block = sequential().to_block();
    let e = Properties::from_block(&block[..block.len() - 1]).unwrap_err();
    assert_eq!(e.status(), Status::BAD_LENGTH);
    assert!(e.message().contains("Wnode.BufferSize"), "{e}");
    assert_eq!(Properties::from_block(&[]).unwrap_err().status(), Status::BAD_LENGTH);
    let mut no_flags = block.clone();
    no_flags[44..48].copy_from_slice(&0u32.to_le_bytes());
    let e = Properties::from_block(&no_flags).unwrap_err();
    assert_eq!(e.status(), Status::INVALID_PARAMETER);
    assert!(e.message().contains("TRACED_GUID"), "{e}");
}

#[test]
fn export_into_a_short_buffer_is_more_data() {
    let p = sequential();
    let mut short = vec![0u8; p.block_size() - 1];
    assert_eq!(p.export_into(&mut short).unwrap_err().status(), Status::MORE_DATA);
    let mut exact = vec![0u8; p.block_size()];
    assert_eq!(p.export_into(&mut exact).unwrap(), exact.len());
}

#[test]
fn names_are_utf8_and_checked() {
    let mut p = Properties::new("Sitzung Ü € 😀").unwrap();
    assert_eq!(p.session_name(), "Sitzung Ü € 😀");
    assert_eq!(p.set_session_name("").unwrap_err().status(), Status::INVALID_NAME);
    assert_eq!(p.set_session_name(&"x".repeat(1025)).unwrap_err().status(), Status::INVALID_NAME);
    let nul = p.set_session_name("a\0b").unwrap_err();
    assert_eq!((nul.status(), nul.message()), (Status::INVALID_NAME, "session name contains a NUL character"));
    assert_eq!(p.session_name(), "Sitzung Ü € 😀");
    assert_eq!(Properties::new("").unwrap_err().status(), Status::INVALID_NAME);
    p.set_log_file_name(Some("/tmp/Протокол.etl")).unwrap();
    assert_eq!(p.log_file_name(), Some("/tmp/Протокол.etl"));
    p.set_log_file_name(None).unwrap();
    assert_eq!(p.log_file_name(), None);
}

#[test]
fn guid_and_record_use_the_windows_layout() {
    let mut p = sequential();
    let guid: Guid = "{6f2c1a3e-9b4d-4e21-8c7a-0123456789ab}".parse().unwrap();
    assert_eq!(guid.to_string(), "6f2c1a3e-9b4d-4e21-8c7a-0123456789ab");
    p.set_guid(guid).unwrap();
    p.set_clock_type(ClockType::SYSTEM_TIME).unwrap();
    assert_eq!(p.guid(), guid);
    let record = p.record();
    assert_eq!(Guid::from(record.Wnode.Guid), guid);
    assert_eq!(record.Wnode.BufferSize as usize, p.block_size());
    assert_eq!(record.Wnode.ClientContext, 2);
    assert_eq!(record.LoggerNameOffset, 120);
    assert_eq!(&p.to_block()[24..40], &guid.to_bytes_le());
    assert!("6f2c1a3e-9b4d".parse::<Guid>().is_err());
    assert_eq!(p.set_clock_type(ClockType(4)).unwrap_err().status(), Status::INVALID_PARAMETER);
}

#[test]
fn validate_reports_the_first_rule_broken() {
    let mut p = sequential();
    p.set_log_file_mode(LogFileMode::CIRCULAR).unwrap();
    assert!(p.validate().unwrap_err().message().contains("MaximumFileSize"));
    p.set_maximum_file_size(1).unwrap();
    p.validate().unwrap();
    let mut kernel = Properties::new("NT Kernel Logger").unwrap();
    kernel.set_log_file_mode(LogFileMode::REAL_TIME).unwrap();
    kernel.set_enable_flags(KernelFlags::PROCESS | KernelFlags::THREAD).unwrap();
    kernel.validate().unwrap();
    assert!(kernel.enable_flags().contains(KernelFlags::THREAD));
}

#[test]
fn clones_are_independent() {
    let mut p = sequential();
    p.set_buffer_size(8).unwrap();
    let mut q = p.clone();
    q.set_buffer_size(16).unwrap();
    assert_eq!((p.buffer_size(), q.buffer_size()), (8, 16));
}

#[test]
fn properties_move_between_threads_and_messages_stay_per_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<Properties>();
    let handles: Vec<_> = (0..4u32)
        .map(|i| {
            let mut p = Properties::new(&format!("Rs Thread {i}")).unwrap();
            std::thread::spawn(move || {
                for _ in 0..2000 {
                    p.set_buffer_size(8).unwrap();
                    let e = p.set_buffer_size(20000 + i).unwrap_err();
                    assert_eq!(e.message(), format!("BufferSize {} KB is outside 4..16384 KB", 20000 + i));
                }
                p
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap().buffer_size(), 8);
    }
}

#[test]
fn version_and_statuses() {
    let v = openetw::version();
    assert_eq!(v.split('.').count(), 3, "{v}");
    assert_eq!(Status::MORE_DATA.name(), "ETW_ERROR_MORE_DATA");
    assert!(!Status::INVALID_PARAMETER.description().is_empty());
    assert_eq!(Status(99999).name(), "ETW_ERROR_UNKNOWN");
}
