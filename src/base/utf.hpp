// Strict UTF-8 <-> UTF-16 conversion. The API speaks UTF-8; Windows-layout
// blocks and .etl files hold UTF-16LE. Invalid input (overlong forms,
// surrogates in UTF-8, unpaired surrogates in UTF-16) is rejected, never
// replaced, so a round trip is always exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace openetw {

// nullopt when utf8 is not valid UTF-8.
std::optional<std::u16string> utf8_to_utf16(std::string_view utf8);

// nullopt when utf16 holds an unpaired surrogate.
std::optional<std::string> utf16_to_utf8(std::u16string_view utf16);

// Index of the first unpaired surrogate, or npos.
std::size_t find_unpaired_surrogate(std::u16string_view utf16);

// Reads n UTF-16LE code units from bytes (no alignment needed).
std::u16string read_utf16le(const std::uint8_t *bytes, std::size_t units);

// Writes s as UTF-16LE code units to out (no alignment needed).
void write_utf16le(std::uint8_t *out, std::u16string_view s);

// Lossy conversion for display only: unpaired surrogates become U+FFFD.
std::string utf16_to_utf8_lossy(std::u16string_view utf16);

// Lossy conversion of system text (a Linux command line or file name is
// bytes, usually UTF-8): a byte that is not part of valid UTF-8 becomes
// U+FFFD rather than losing the whole text.
std::u16string utf8_to_utf16_lossy(std::string_view utf8);

} // namespace openetw
