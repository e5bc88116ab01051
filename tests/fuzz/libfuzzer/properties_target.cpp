// libFuzzer target: any bytes as an EVENT_TRACE_PROPERTIES block for
// etw_properties_import. A rejected block needs a message; an accepted one
// must export and import again to the same bytes.
#include <openetw/openetw.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

std::vector<std::uint8_t> export_of(const etw_properties *p)
{
    size_t size = 0;
    etw_properties_export(nullptr, 0, &size, p);
    std::vector<std::uint8_t> b(size);
    if (etw_properties_export(b.data(), b.size(), &size, p) != ETW_OK)
        std::abort();
    return b;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    etw_properties *p = nullptr;
    if (etw_properties_import(&p, data, size) != ETW_OK) {
        if (etw_last_error_message()[0] == '\0')
            std::abort();
        return 0;
    }
    const std::vector<std::uint8_t> once = export_of(p);
    etw_properties *q = nullptr;
    if (etw_properties_import(&q, once.data(), once.size()) != ETW_OK)
        std::abort();
    if (export_of(q) != once)
        std::abort();
    etw_properties_destroy(q);
    etw_properties_destroy(p);
    return 0;
}
