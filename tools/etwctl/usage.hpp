// etwctl's help text, printed by `etwctl help` and after every usage error.
#pragma once

namespace etwctl::detail {

extern const char kUsage[];

} // namespace etwctl::detail
