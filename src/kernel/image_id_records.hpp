// KernelTraceControl's ImageID class, which Windows' merged kernel traces
// (xperf -merge, WPR) add after each image load: DbgID_RSDS names the
// image's debug information (the PDB GUID and age), which symbol tools
// key their lookups by. The system logger writes one after each Image
// Load/DCStart/DCEnd of an ELF image with a GNU build id, the build id in
// GuidSig and Age (docs/KERNEL_LOGGER.md, "Build ids"). Classic events:
// EVENT_TRACE_HEADER with the class GUID inline, as TraceEvent's
// SymbolTraceEventParser and the ETW decoders read them. Pure functions
// over bytes.
#pragma once

#include "kernel/kernel_records.hpp"

#include <openetw/records.h>

#include <span>
#include <string>

namespace openetw::kernel {

// The ImageID class (b3e675d7-2554-4f18-830b-2762732560de) and its types.
inline constexpr etw_guid kImageIdGuid = {0xb3e675d7, 0x2554, 0x4f18, {0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde}};
inline constexpr std::uint8_t kImageIdTypeInfo = 0;       // ImageID: base, size, pid, TimeDateStamp, file name
inline constexpr std::uint8_t kImageIdTypeDbgIdRsds = 36; // DbgID_RSDS
inline constexpr std::uint16_t kImageIdVersion = 2;

// The bytes of a build id DbgID_RSDS carries: GuidSig (16) then Age (4).
inline constexpr std::size_t kDbgIdBuildIdBytes = 20;

// DbgID_RSDS's payload: ImageBase (pointer), ProcessId, GuidSig, Age,
// PdbFileName (ANSI).
struct DbgIdRsdsFields {
    std::uint64_t image_base = 0;
    std::uint32_t process_id = 0;
    std::uint8_t guid_sig[16] = {}; // the GUID's bytes as stored
    std::uint32_t age = 0;
    std::string pdb_file_name;
};

// A GNU build id as DbgID_RSDS holds it: its first 16 bytes are GuidSig,
// the next 4 Age (little-endian), so the usual 20-byte SHA-1 id is kept
// whole; a shorter id is zero-padded, a longer one cut to 20 bytes.
DbgIdRsdsFields dbgid_from_build_id(std::span<const std::uint8_t> build_id, std::uint64_t image_base,
                                    std::uint32_t process_id, std::string pdb_file_name);

// The payload alone; PdbFileName is shortened so that a record of it fits
// max_record (never cut inside a UTF-8 sequence).
Bytes dbgid_rsds_payload(const DbgIdRsdsFields &f, std::uint32_t pointer_size, std::size_t max_record = kMaxRecordSize);

// A classic event: the 0x30-byte EVENT_TRACE_HEADER (HeaderType 0x14, or
// 0x0A for 32-bit pointers; MarkerFlags 0xC0; Class.Type, Level 0,
// Class.Version; the ids and time of header; the GUID inline; no CPU
// times) then payload. Empty when it would exceed kMaxRecordSize.
Bytes encode_classic_record(const etw_guid &guid, std::uint8_t type, std::uint16_t version, const HeaderFields &header,
                            std::uint32_t pointer_size, const Bytes &payload);

// ImageID/DbgID_RSDS, version 2.
Bytes dbgid_rsds_record(const HeaderFields &header, const DbgIdRsdsFields &f, std::uint32_t pointer_size,
                        std::size_t max_record = kMaxRecordSize);

} // namespace openetw::kernel
