// WPP trace message format (TMF) files, the text TracePDB extracts from a
// driver's PDB and TraceFmt reads:
//
//   // PDB: ...                                   (comments)
//   5c2f1f1c-7ab3-3e1d-8d07-6bd4fa7cd9c6 MyDriver // SRC=driver.c MJ= MN=
//   #typev driver_c123 10 "%0 Status %10!x! for %11!ws!" //   LEVEL=TRACE_LEVEL_ERROR FLAGS=INIT FUNC=DriverEntry
//   {
//   status, ItemNTSTATUS -- 10
//   RegistryPath->Buffer, ItemWString -- 11
//   }
//
// A GUID line (message GUID, module name) opens a group of messages; each
// `#typev` gives the message's name (the source file and line), number,
// format string (%0 the prefix, %N!spec! argument N, %!KEY! a trailer key)
// and trailer; the brace block lists the arguments as marshalled, each with
// its name, Item type and number. Each message becomes an EventSchema whose
// fields are the arguments in number order, so the common payload decoder
// reads them.
#pragma once

#include "decode/event_decoder.hpp"

#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace openetw::decode {

struct TmfMessage {
    EventSchema schema;                      // event_name: the #typev name; provider_name: the module
    std::string format;                      // the format string as written (with %0)
    std::vector<std::uint16_t> numbers;      // the %N of each field of schema, in field order
    std::map<std::string, std::string> keys; // trailer KEY=value (keys upper-cased)
};

// Most bytes of TMF text read at once, and messages one load may add.
inline constexpr std::size_t kMaxTmfBytes = 64u << 20;
inline constexpr std::size_t kMaxTmfMessages = 1u << 20;
inline constexpr std::size_t kMaxTmfArguments = 256;

// A message's identity: its GUID's bytes (etw_guid layout) and its number.
struct TmfKey {
    std::array<std::uint8_t, 18> bytes{};
    bool operator==(const TmfKey &) const = default;
};
struct TmfKeyHash {
    std::size_t operator()(const TmfKey &k) const
    {
        std::uint64_t a, b;
        std::memcpy(&a, k.bytes.data(), 8);
        std::memcpy(&b, k.bytes.data() + 8, 8);
        return std::size_t(a * 0x9E3779B97F4A7C15ull ^ b ^ (std::uint64_t(k.bytes[16]) << 48) ^
                           (std::uint64_t(k.bytes[17]) << 56));
    }
};
TmfKey tmf_key(const etw_guid &guid, std::uint16_t number);
using TmfMessages = std::unordered_map<TmfKey, std::unique_ptr<TmfMessage>, TmfKeyHash>;

// Parses TMF text (UTF-8, else read as Latin-1; UTF-16LE with a BOM) into
// messages keyed by tmf_key. Strict: returns false with problem set
// (ETW_ERROR_INVALID_DATA, "line N: ...") on the first line that is not
// a comment, GUID line, #typev line, brace or argument line of the right
// form, on an unknown Item type, a duplicate message or argument number, a
// format string naming an argument the list does not declare, or a text over
// kMaxTmfBytes.
bool parse_tmf(std::span<const std::uint8_t> text, TmfMessages &out, Problem &problem);

// The loaded messages, found by message GUID and number (records that carry
// a component id instead of a GUID are not found).
class TmfSchemas : public SchemaSource {
public:
    const EventSchema *find(const etw_record &record) const override;
    Source kind() const override { return Source::Wpp; }

    const TmfMessage *message(const etw_record &record) const;

    // Parses and adds (all or nothing); a message already known is replaced.
    bool load(std::span<const std::uint8_t> text, Problem &problem);
    // Adds messages parse_tmf read; a message already known is replaced.
    void add(TmfMessages loaded);
    std::size_t size() const { return messages_.size(); }

private:
    TmfMessages messages_; // found without allocating
};

} // namespace openetw::decode
