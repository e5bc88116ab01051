//! The provider listing (provider.h, EnumerateTraceGuidsEx): which provider
//! GUIDs exist, who registers one and which sessions enable it.
use openetw_sys as sys;

use crate::error::{check, Result, Status};
use crate::filter::EnableProperty;
use crate::types::Guid;

/// A process registering a provider (TRACE_PROVIDER_INSTANCE_INFO).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProviderProcess {
    /// The process.
    pub process_id: u32,
    /// Its registrations of the GUID not yet dropped.
    pub registrations: u32,
}

/// A session enabling a provider, as it did (TRACE_ENABLE_INFO).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderSession {
    /// The session handle (Wnode.HistoricalContext).
    pub session_handle: u64,
    /// The session's name.
    pub session_name: String,
    /// The level it takes; 0: every level.
    pub level: u8,
    /// Its MatchAnyKeyword.
    pub match_any_keyword: u64,
    /// Its MatchAllKeyword.
    pub match_all_keyword: u64,
    /// The event filters it attached (0: none).
    pub filter_count: u32,
    /// The enable properties it asked for.
    pub properties: EnableProperty,
}

/// Who registers a provider GUID and which sessions enable it ([`query_provider`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderInfo {
    /// The provider GUID.
    pub guid: Guid,
    /// The live processes registering it, by process id.
    pub processes: Vec<ProviderProcess>,
    /// The sessions enabling it: the session host's and this process's own.
    pub sessions: Vec<ProviderSession>,
}

/// The provider GUIDs of the namespace (EnumerateTraceGuidsEx
/// TraceGuidQueryList): every GUID a live process registers or a running
/// session enables, each once, in byte order. A snapshot.
pub fn list_providers() -> Result<Vec<Guid>> {
    let mut guids: Vec<sys::etw_guid> = Vec::new();
    loop {
        let mut count = 0u32;
        let status = unsafe { sys::etw_provider_list(guids.as_mut_ptr(), guids.len() as u32, &mut count) };
        match check(status) {
            Ok(()) => {
                guids.truncate(count as usize);
                return Ok(guids.into_iter().map(Guid::from).collect());
            }
            // Providers came meanwhile: ask again with room for them.
            Err(e) if e.status() == Status::MORE_DATA => {
                guids = vec![Guid::NIL.into(); count as usize];
            }
            Err(e) => return Err(e),
        }
    }
}

/// Who registers `guid` and which sessions enable it (EnumerateTraceGuidsEx
/// TraceGuidQueryInfo). An error of status [`Status::WMI_GUID_NOT_FOUND`]
/// when no live process registers it and no running session enables it.
pub fn query_provider(guid: &Guid) -> Result<ProviderInfo> {
    let key: sys::etw_guid = (*guid).into();
    let mut processes: Vec<sys::etw_provider_process> = Vec::new();
    let mut sessions: Vec<sys::etw_provider_session> = Vec::new();
    loop {
        let (mut np, mut ns) = (0u32, 0u32);
        let status = unsafe {
            sys::etw_provider_query(
                &key,
                processes.as_mut_ptr(),
                processes.len() as u32,
                &mut np,
                sessions.as_mut_ptr(),
                sessions.len() as u32,
                &mut ns,
            )
        };
        match check(status) {
            Ok(()) => {
                processes.truncate(np as usize);
                sessions.truncate(ns as usize);
                return Ok(ProviderInfo {
                    guid: *guid,
                    processes: processes
                        .iter()
                        .map(|p| ProviderProcess { process_id: p.process_id, registrations: p.registrations })
                        .collect(),
                    sessions: sessions.iter().map(session_of).collect(),
                });
            }
            Err(e) if e.status() == Status::MORE_DATA => {
                processes = vec![sys::etw_provider_process { process_id: 0, registrations: 0 }; np as usize];
                sessions = vec![empty_session(); ns as usize];
            }
            Err(e) => return Err(e),
        }
    }
}

fn empty_session() -> sys::etw_provider_session {
    sys::etw_provider_session {
        session_handle: 0,
        match_any_keyword: 0,
        match_all_keyword: 0,
        level: 0,
        filter_count: 0,
        enable_property: 0,
        reserved: 0,
        session_name: [0; 128],
    }
}

fn session_of(s: &sys::etw_provider_session) -> ProviderSession {
    let bytes: Vec<u8> = s.session_name.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    ProviderSession {
        session_handle: s.session_handle,
        session_name: String::from_utf8_lossy(&bytes).into_owned(),
        level: s.level as u8,
        match_any_keyword: s.match_any_keyword,
        match_all_keyword: s.match_all_keyword,
        filter_count: s.filter_count,
        properties: EnableProperty(s.enable_property),
    }
}
