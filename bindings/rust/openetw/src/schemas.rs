//! Schema sources (decode.h): instrumentation manifests and provider binaries
//! (a WEVT_TEMPLATE resource) for manifest-based events, on an explicit
//! [`Decoder`] or on the default sources every thread's decoder of
//! [`Record::decode`](crate::Record::decode) has ([`load_manifest`],
//! [`load_binary`]).
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use openetw_sys as sys;

use crate::decode::Decoder;
use crate::error::{check, Error, Result, Status};
use crate::session::c_path;

impl Decoder {
    /// Loads an instrumentation manifest (.man XML, UTF-8 or UTF-16 with a
    /// BOM): its events then decode. All or nothing. Errors:
    /// `INVALID_DATA` (bad XML, an inconsistent manifest: the message names
    /// the file and line), `FILE_NOT_FOUND`, `ACCESS_DENIED`,
    /// `NO_UNICODE_TRANSLATION`.
    pub fn load_manifest(&mut self, path: impl AsRef<Path>) -> Result<()> {
        let path = c_path(path.as_ref())?;
        check(unsafe { sys::etw_decoder_load_manifest(self.raw, path.as_ptr()) })
    }

    /// As [`load_manifest`](Self::load_manifest), from the manifest's text
    /// (messages name it "(memory)").
    pub fn load_manifest_text(&mut self, text: &[u8]) -> Result<()> {
        check(unsafe { sys::etw_decoder_load_manifest_text(self.raw, text.as_ptr().cast(), text.len()) })
    }

    /// Loads the manifest compiled into a provider binary (a PE DLL/EXE/SYS
    /// with a WEVT_TEMPLATE resource; names from its MESSAGETABLE). Errors:
    /// `NOT_FOUND` (no WEVT_TEMPLATE), `INVALID_DATA` (not a PE image, or
    /// damaged: the message names the file, part and offset),
    /// `FILE_NOT_FOUND`, `ACCESS_DENIED`.
    pub fn load_binary(&mut self, path: impl AsRef<Path>) -> Result<()> {
        let path = c_path(path.as_ref())?;
        check(unsafe { sys::etw_decoder_load_binary(self.raw, path.as_ptr()) })
    }

    /// As [`load_binary`](Self::load_binary), from the bytes of a PE file.
    pub fn load_binary_image(&mut self, image: &[u8]) -> Result<()> {
        check(unsafe { sys::etw_decoder_load_binary_image(self.raw, image.as_ptr().cast(), image.len()) })
    }

    fn load(&mut self, kind: Kind, data: &[u8]) -> Result<()> {
        match kind {
            Kind::Manifest => self.load_manifest_text(data),
            Kind::Binary => self.load_binary_image(data),
        }
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Manifest,
    Binary,
}

// The default sources, only ever appended to: a thread's decoder applies
// the ones past its count (COUNT spares it the lock when it is up to date).
static SOURCES: Mutex<Vec<(Kind, Arc<[u8]>)>> = Mutex::new(Vec::new());
static COUNT: AtomicUsize = AtomicUsize::new(0);

fn add(kind: Kind, path: &Path) -> Result<()> {
    // The library reads and checks the file first: its error names it.
    let mut probe = Decoder::new()?;
    match kind {
        Kind::Manifest => probe.load_manifest(path)?,
        Kind::Binary => probe.load_binary(path)?,
    }
    let data = std::fs::read(path)
        .map_err(|e| Error::new(Status::READ_FAULT, format!("{}: {e}", path.display())))?;
    let mut sources = SOURCES.lock().unwrap_or_else(|p| p.into_inner());
    sources.push((kind, data.into()));
    COUNT.store(sources.len(), Ordering::Release);
    Ok(())
}

/// Adds an instrumentation manifest to the default sources: every thread's
/// decoder behind [`Record::decode`](crate::Record::decode) (and
/// `ClassicEvent::decode`, `EventRecord::decode`) has it from its next
/// decode on. Errors as [`Decoder::load_manifest`]; on error nothing is added.
pub fn load_manifest(path: impl AsRef<Path>) -> Result<()> {
    add(Kind::Manifest, path.as_ref())
}

/// Adds a provider binary's manifest (WEVT_TEMPLATE) to the default sources,
/// as [`load_manifest`]. Errors as [`Decoder::load_binary`].
pub fn load_binary(path: impl AsRef<Path>) -> Result<()> {
    add(Kind::Binary, path.as_ref())
}

/// How many default sources were added.
pub fn source_count() -> usize {
    COUNT.load(Ordering::Acquire)
}

/// Brings a thread's decoder up to date with the default sources.
pub(crate) fn catch_up(decoder: &mut Decoder, applied: &mut usize) -> Result<()> {
    if COUNT.load(Ordering::Acquire) == *applied {
        return Ok(());
    }
    let pending: Vec<(Kind, Arc<[u8]>)> = {
        let sources = SOURCES.lock().unwrap_or_else(|p| p.into_inner());
        sources[*applied..].to_vec()
    };
    for (kind, data) in pending {
        decoder.load(kind, &data)?;
        *applied += 1;
    }
    Ok(())
}
