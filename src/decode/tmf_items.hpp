// TMF Item types -> TDH in-types/out-types (and value lists).
#pragma once

#include "decode/schema.hpp"

#include <string>
#include <string_view>

namespace openetw::decode {

// Sets field's in_type and out_type from an Item type as a TMF argument line
// writes it (`ItemLong`, `ItemListLong(a,b=5,c)`, `ItemSetByte(x,y)`,
// `ItemEnum(Name)`). For lists and sets, fills map and sets has_map.
// Returns false with error set for an unknown type or a bad list.
bool tmf_item(std::string_view text, Field &field, ValueMap &map, bool &has_map, std::string &error);

// s without the white space around it (TMF lines and their items).
std::string_view trim_space(std::string_view s);

} // namespace openetw::decode
