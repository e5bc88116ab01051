// The default output of etwdump: per file the session facts, then record
// counts per kind and per provider/class GUID.
#pragma once

#include <openetw/openetw.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

namespace etwdump {

class Summary {
public:
    void add(const etw_record &r);
    // warnings: buffers the consumer flagged ETW_BUFFER_STATUS_WARNING.
    void print(std::FILE *out, const etw_consumer *consumer, etw_status status, uint64_t warnings) const;

private:
    std::map<std::string, uint64_t> by_kind_;
    std::map<std::string, uint64_t> by_guid_;
    uint64_t records_ = 0;
    int64_t first_ = INT64_MAX;
    int64_t last_ = INT64_MIN;
};

} // namespace etwdump
