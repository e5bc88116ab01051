// The callback rules: stop by return value, cancel from another thread,
// close while processing (from another thread and from a callback),
// user_data_free exactly once, argument checks.
#include "consumer_fixture.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

using namespace etltest;

namespace {

std::string many_records_file(const TempDir &dir, int buffers = 20, int per_buffer = 50)
{
    FileBuilder f;
    for (int b = 0; b < buffers; ++b) {
        BufferSpec spec;
        spec.sequence = std::uint64_t(b + 1);
        for (int r = 0; r < per_buffer; ++r)
            spec.records.push_back(system_record(0x02, std::uint16_t(r), 1, 1, 1000 + b * 100 + r, {}));
        f.add(spec);
    }
    return dir.write("many.etl", f.build());
}

struct State {
    std::atomic<int> records{0};
    std::atomic<int> buffers{0};
    std::atomic<int> frees{0};
    std::atomic<bool> closed{false};
    std::atomic<int> after_close{0};
    int stop_at_record = -1;
    int stop_at_buffer = -1;
    std::int32_t stop_value = 1;
    std::function<void(State &)> on_first_record;
    etw_consumer *consumer = nullptr;
};

etw_consumer_options options_for(State &s)
{
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_CONSUMER_ORDER_FILE;
    o.user_data = &s;
    o.user_data_free = [](void *u) { static_cast<State *>(u)->frees++; };
    o.record = [](void *u, const etw_record *) -> int32_t {
        auto &s = *static_cast<State *>(u);
        if (s.closed)
            s.after_close++;
        const int n = ++s.records;
        if (n == 1 && s.on_first_record)
            s.on_first_record(s);
        return n == s.stop_at_record ? s.stop_value : 0;
    };
    o.buffer = [](void *u, const etw_buffer_info *) -> int32_t {
        auto &s = *static_cast<State *>(u);
        if (s.closed)
            s.after_close++;
        const int n = ++s.buffers;
        return n == s.stop_at_buffer ? s.stop_value : 0;
    };
    return o;
}

etw_consumer *open_one(const std::string &path, const etw_consumer_options &o)
{
    const char *paths[] = {path.c_str()};
    etw_consumer *c = nullptr;
    EXPECT_EQ(etw_consumer_open(&c, paths, 1, &o), ETW_OK) << etw_last_error_message();
    return c;
}

} // namespace

TEST(ConsumerLifecycle, NonZeroReturnsStop)
{
    TempDir dir;
    const std::string path = many_records_file(dir);
    {
        State s;
        s.stop_at_record = 3;
        s.stop_value = -5;
        etw_consumer *c = open_one(path, options_for(s));
        EXPECT_EQ(etw_consumer_process(c), ETW_ERROR_CANCELLED);
        EXPECT_STREQ(etw_last_error_message(), "the record callback returned -5: processing stopped");
        EXPECT_EQ(s.records, 3);
        EXPECT_EQ(s.buffers, 1); // buffer 0 ended; buffer 1's callback would follow its last record
        EXPECT_EQ(etw_consumer_close(c), ETW_OK);
        EXPECT_EQ(s.frees, 1);
    }
    {
        State s;
        s.stop_at_buffer = 2;
        etw_consumer *c = open_one(path, options_for(s));
        EXPECT_EQ(etw_consumer_process(c), ETW_ERROR_CANCELLED);
        EXPECT_STREQ(etw_last_error_message(), "the buffer callback returned 1: processing stopped");
        EXPECT_EQ(s.buffers, 2);
        EXPECT_EQ(s.records, 1 + 50); // header record, then buffer 1's records
        etw_consumer_close(c);
    }
    {
        // The event callback stops too.
        FileBuilder f;
        BufferSpec b;
        b.records = {full_record(FullSpec{}, {}), full_record(FullSpec{}, {})};
        f.add(b);
        int events = 0;
        etw_consumer_options o{};
        o.struct_size = sizeof o;
        o.user_data = &events;
        o.event = [](void *u, const etw_classic_event *) -> int32_t { return ++*static_cast<int *>(u); };
        etw_consumer *c = open_one(dir.write("events.etl", f.build()), o);
        EXPECT_EQ(etw_consumer_process(c), ETW_ERROR_CANCELLED);
        EXPECT_STREQ(etw_last_error_message(), "the event callback returned 1: processing stopped");
        EXPECT_EQ(events, 1);
        etw_consumer_close(c);
    }
}

TEST(ConsumerLifecycle, CancelBeforeProcessIsPermanent)
{
    TempDir dir;
    State s;
    etw_consumer *c = open_one(many_records_file(dir), options_for(s));
    EXPECT_EQ(etw_consumer_cancel(c), ETW_OK);
    EXPECT_EQ(etw_consumer_process(c), ETW_ERROR_CANCELLED);
    EXPECT_EQ(etw_consumer_process(c), ETW_ERROR_CANCELLED);
    EXPECT_EQ(s.records, 0);
    etw_consumer_close(c);
    EXPECT_EQ(s.frees, 1);
}

TEST(ConsumerLifecycle, CancelFromAnotherThread)
{
    TempDir dir;
    State s;
    s.on_first_record = [](State &st) {
        // Another thread cancels while this callback runs; processing stops after it returns.
        std::thread([&st] { EXPECT_EQ(etw_consumer_cancel(st.consumer), ETW_OK); }).join();
    };
    s.consumer = open_one(many_records_file(dir), options_for(s));
    EXPECT_EQ(etw_consumer_process(s.consumer), ETW_ERROR_CANCELLED);
    EXPECT_STREQ(etw_last_error_message(), "processing was cancelled by etw_consumer_cancel or etw_consumer_close");
    EXPECT_EQ(s.records, 1);
    etw_consumer_close(s.consumer);
}

TEST(ConsumerLifecycle, CloseFromAnotherThreadWaitsForProcess)
{
    TempDir dir;
    State s;
    std::atomic<bool> started{false};
    s.on_first_record = [&started](State &) {
        started = true;
        // Keep processing busy long enough that close surely finds it running.
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    };
    s.consumer = open_one(many_records_file(dir, 200, 50), options_for(s));
    etw_status process_status = ETW_OK;
    std::thread worker([&] { process_status = etw_consumer_process(s.consumer); });
    while (!started)
        std::this_thread::yield();
    EXPECT_EQ(etw_consumer_close(s.consumer), ETW_OK);
    s.closed = true;
    // Close has returned: the consumer is gone, user data freed once, no callback after.
    EXPECT_EQ(s.frees, 1);
    worker.join();
    EXPECT_EQ(process_status, ETW_ERROR_CANCELLED);
    EXPECT_EQ(s.after_close, 0);
    EXPECT_LT(s.records, 200 * 50);
    EXPECT_EQ(s.frees, 1);
}

TEST(ConsumerLifecycle, CloseFromACallbackIsDeferred)
{
    TempDir dir;
    State s;
    s.on_first_record = [](State &st) {
        EXPECT_EQ(etw_consumer_close(st.consumer), ETW_ERROR_CTX_CLOSE_PENDING);
        EXPECT_EQ(st.frees, 0); // still in use by the running process
        EXPECT_EQ(etw_consumer_process(st.consumer), ETW_ERROR_BUSY);
        st.closed = true;
    };
    s.consumer = open_one(many_records_file(dir), options_for(s));
    EXPECT_EQ(etw_consumer_process(s.consumer), ETW_ERROR_CANCELLED);
    EXPECT_EQ(s.frees, 1);
    EXPECT_EQ(s.records, 1);
    EXPECT_EQ(s.after_close, 0);
}

TEST(ConsumerLifecycle, ProcessFromACallbackIsBusy)
{
    TempDir dir;
    State s;
    s.on_first_record = [](State &st) {
        EXPECT_EQ(etw_consumer_process(st.consumer), ETW_ERROR_BUSY);
        EXPECT_NE(std::string(etw_last_error_message()).find("already processing"), std::string::npos);
    };
    s.consumer = open_one(many_records_file(dir, 2, 2), options_for(s));
    EXPECT_EQ(etw_consumer_process(s.consumer), ETW_OK);
    EXPECT_EQ(s.records, 5);
    etw_consumer_close(s.consumer);
}

TEST(ConsumerLifecycle, OpenFailuresFreeUserDataOnce)
{
    TempDir dir;
    const std::string good = many_records_file(dir, 1, 1);
    State s;
    const etw_consumer_options o = options_for(s);
    etw_consumer *c = reinterpret_cast<etw_consumer *>(&s); // must be reset to NULL
    const std::string missing = dir.path("missing.etl");
    const char *paths[] = {good.c_str(), missing.c_str()};
    EXPECT_EQ(etw_consumer_open(&c, paths, 2, &o), ETW_ERROR_FILE_NOT_FOUND);
    EXPECT_EQ(c, nullptr);
    EXPECT_NE(std::string(etw_last_error_message()).find(missing), std::string::npos);
    EXPECT_EQ(s.frees, 1);

    EXPECT_EQ(etw_consumer_open(&c, nullptr, 1, &o), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_STREQ(etw_last_error_message(), "paths is NULL");
    EXPECT_EQ(s.frees, 2);
    EXPECT_EQ(etw_consumer_open(&c, paths, 0, &o), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(s.frees, 3);
    EXPECT_EQ(etw_consumer_open(nullptr, paths, 1, &o), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_STREQ(etw_last_error_message(), "out is NULL");
    EXPECT_EQ(s.frees, 4);
    const char *null_path[] = {nullptr};
    EXPECT_EQ(etw_consumer_open(&c, null_path, 1, &o), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_STREQ(etw_last_error_message(), "paths[0] is NULL");
    EXPECT_EQ(s.frees, 5);
    etw_consumer_options bad_flags = o;
    bad_flags.flags = 0x100;
    EXPECT_EQ(etw_consumer_open(&c, paths, 1, &bad_flags), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(s.frees, 6);
    // An options struct of unknown size is not read at all, user_data_free included.
    etw_consumer_options small = o;
    small.struct_size = 8;
    EXPECT_EQ(etw_consumer_open(&c, paths, 1, &small), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(s.frees, 6);
    // A directory is not a trace file.
    const std::string folder = dir.path("");
    const char *dirs[] = {folder.c_str()};
    EXPECT_EQ(etw_consumer_open(&c, dirs, 1, nullptr), ETW_ERROR_ACCESS_DENIED);
}

TEST(ConsumerLifecycle, NullArguments)
{
    EXPECT_EQ(etw_consumer_process(nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_STREQ(etw_last_error_message(), "consumer is NULL");
    EXPECT_EQ(etw_consumer_cancel(nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_consumer_close(nullptr), ETW_OK);
    uint32_t n = 0;
    EXPECT_EQ(etw_consumer_file_count(&n, nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_consumer_file_count(nullptr, nullptr), ETW_ERROR_INVALID_PARAMETER);
    etw_logfile_info info{};
    info.struct_size = sizeof info;
    EXPECT_EQ(etw_consumer_logfile_header(&info, nullptr, 0), ETW_ERROR_INVALID_PARAMETER);
    etw_consumer_stats stats{};
    stats.struct_size = sizeof stats;
    EXPECT_EQ(etw_consumer_get_stats(&stats, nullptr), ETW_ERROR_INVALID_PARAMETER);

    TempDir dir;
    const std::string path = many_records_file(dir, 1, 1);
    const char *paths[] = {path.c_str()};
    etw_consumer *c = nullptr;
    ASSERT_EQ(etw_consumer_open(&c, paths, 1, nullptr), ETW_OK); // no callbacks at all
    EXPECT_EQ(etw_consumer_process(c), ETW_OK);
    stats.struct_size = 4;
    EXPECT_EQ(etw_consumer_get_stats(&stats, c), ETW_ERROR_INVALID_PARAMETER);
    stats.struct_size = sizeof stats;
    EXPECT_EQ(etw_consumer_get_stats(&stats, c), ETW_OK);
    EXPECT_EQ(stats.records, 2u);
    EXPECT_EQ(stats.file_count, 1u);
    etw_consumer_close(c);
}
