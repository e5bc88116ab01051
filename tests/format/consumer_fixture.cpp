#include "consumer_fixture.hpp"

#include <random>

namespace etltest {

TempDir::TempDir()
{
    std::random_device rd;
    dir_ = std::filesystem::temp_directory_path() / ("openetw-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(dir_);
}

TempDir::~TempDir()
{
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
}

std::string TempDir::write(const std::string &name, const Bytes &bytes) const
{
    const std::string p = path(name);
    write_file(p, bytes);
    return p;
}

namespace {

int32_t on_record(void *user, const etw_record *r)
{
    auto *run = static_cast<RunResult *>(user);
    SeenRecord s;
    s.record = *r;
    s.bytes.assign(r->bytes, r->bytes + r->size);
    s.payload.assign(r->payload, r->payload + r->payload_size);
    for (uint32_t i = 0; i < r->extended_count; ++i)
        s.extended.emplace_back(r->extended[i],
                                Bytes(r->extended[i].data, r->extended[i].data + r->extended[i].data_size));
    run->records.push_back(std::move(s));
    return 0;
}

int32_t on_buffer(void *user, const etw_buffer_info *b)
{
    auto *run = static_cast<RunResult *>(user);
    SeenBuffer s;
    s.info = *b;
    s.message = b->message;
    s.data.assign(b->data, b->data + b->stored_size);
    run->buffers.push_back(std::move(s));
    return 0;
}

int32_t on_event(void *user, const etw_classic_event *e)
{
    auto *run = static_cast<RunResult *>(user);
    SeenEvent s;
    s.event = *e;
    s.payload.assign(e->payload, e->payload + e->payload_size);
    run->events.push_back(std::move(s));
    return 0;
}

} // namespace

RunResult run_consumer(const std::vector<std::string> &paths, std::uint32_t flags)
{
    RunResult run;
    std::vector<const char *> c_paths;
    for (const auto &p : paths)
        c_paths.push_back(p.c_str());
    etw_consumer_options options{};
    options.struct_size = sizeof options;
    options.flags = flags;
    options.record = on_record;
    options.buffer = on_buffer;
    options.event = on_event;
    options.user_data = &run;
    etw_consumer *c = nullptr;
    run.open_status = etw_consumer_open(&c, c_paths.data(), uint32_t(c_paths.size()), &options);
    run.open_message = etw_last_error_message();
    if (run.open_status != ETW_OK)
        return run;
    run.status = etw_consumer_process(c);
    run.message = etw_last_error_message();
    run.stats.struct_size = sizeof run.stats;
    etw_consumer_get_stats(&run.stats, c);
    for (uint32_t i = 0; i < c_paths.size(); ++i) {
        etw_logfile_info info{};
        info.struct_size = sizeof info;
        etw_consumer_logfile_header(&info, c, i);
        run.logger_names.push_back(info.logger_name);
        run.headers.push_back(info);
    }
    etw_consumer_close(c);
    return run;
}

std::vector<int> event_ids(const RunResult &run)
{
    std::vector<int> ids;
    for (const SeenRecord &r : run.records)
        if (r.record.kind == ETW_RECORD_KIND_EVENT)
            ids.push_back(r.record.event_id);
    return ids;
}

} // namespace etltest
