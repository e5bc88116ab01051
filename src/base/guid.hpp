// GUID helpers: canonical lower-case text and parsing, comparison, null test.
#pragma once

#include <openetw/records.h>

#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace openetw {

// "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lower case, no braces.
std::string guid_to_string(const etw_guid &g);

// Accepts the canonical form with or without braces, any case.
std::optional<etw_guid> guid_from_string(std::string_view text);

inline bool guid_equal(const etw_guid &a, const etw_guid &b) { return std::memcmp(&a, &b, sizeof a) == 0; }
inline bool guid_is_null(const etw_guid &g) { return guid_equal(g, etw_guid{}); }

} // namespace openetw
