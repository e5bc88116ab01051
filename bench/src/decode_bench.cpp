// decode-bench: the throughput of event decoding (decode.h), single thread.
//   decode-bench FILE...        reads the files three times: records only,
//                               records + etw_decoder_decode, and that plus
//                               the JSON text of every property (what
//                               etwdump --format jsonl adds); MB/s of file
//                               bytes per pass.
//   decode-bench --synthetic N  decodes one TraceLogging record (the lxcore
//                               sample's BreakPoint event: 9 fields, a GUID,
//                               strings) N times: records/s and MB/s of
//                               record bytes.
// Figures are given per wall second and per CPU second of the process (the
// per-core figure, which a loaded machine does not distort).
#include <openetw/openetw.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Pass {
    etw_decoder *decoder = nullptr;
    bool json = false;
    std::string out;
    unsigned long long records = 0, decoded = 0;
};

int32_t on_record(void *user, const etw_record *r)
{
    auto *p = static_cast<Pass *>(user);
    ++p->records;
    if (!p->decoder)
        return 0;
    const etw_decoded_event *e = nullptr;
    if (etw_decoder_decode(&e, p->decoder, r) != ETW_OK)
        return 0;
    ++p->decoded;
    if (p->json) {
        p->out.clear();
        for (uint32_t i = 0; i < e->property_count; ++i) {
            p->out += e->properties[i].name;
            p->out += e->properties[i].value;
        }
    }
    return 0;
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int files(int argc, char **argv)
{
    std::vector<const char *> paths(argv + 1, argv + argc);
    const char *names[] = {"records only", "records + decode", "records + decode + text"};
    for (int mode = 0; mode < 3; ++mode) {
        Pass pass;
        if (mode > 0)
            etw_decoder_create(&pass.decoder);
        pass.json = mode == 2;
        etw_consumer_options o{};
        o.struct_size = sizeof o;
        o.flags = ETW_CONSUMER_ORDER_FILE;
        o.record = on_record;
        o.user_data = &pass;
        etw_consumer *c = nullptr;
        if (etw_consumer_open(&c, paths.data(), uint32_t(paths.size()), &o) != ETW_OK) {
            std::fprintf(stderr, "decode-bench: %s\n", etw_last_error_message());
            return 1;
        }
        unsigned long long bytes = 0;
        for (uint32_t i = 0; i < paths.size(); ++i) {
            etw_logfile_info info{};
            info.struct_size = sizeof info;
            etw_consumer_logfile_header(&info, c, i);
            bytes += info.file_size;
        }
        const auto t0 = std::chrono::steady_clock::now();
        const std::clock_t c0 = std::clock();
        etw_consumer_process(c);
        const double s = seconds_since(t0);
        const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
        etw_consumer_close(c);
        etw_decoder_destroy(pass.decoder);
        std::printf("%-26s %8.1f MB/s wall %8.1f MB/s per CPU s  %llu records, %llu decoded, %.3f s\n", names[mode],
                    bytes / s / 1e6, bytes / cpu / 1e6, pass.records, pass.decoded, s);
    }
    return 0;
}

int synthetic(unsigned long long n)
{
    // The lxcore sample's BreakPoint metadata and first payload.
    static const char meta_text[] = "d\0\x80\0BreakPoint\0ErrorLevel\0\x04instanceId\0\x0fLxPid\0\x07LxTid\0\x07"
                                    "LxNs\0\x07"
                                    "ExecutablePath\0\x17"
                                    "Function\0\x02Line\0\x08Message\0\x02";
    static const char traits_text[] = "%\0Microsoft.Windows.Subsystem.LxCore"; // '%': 37 bytes
    std::vector<uint8_t> payload = {2};
    payload.resize(17, 0);
    for (int i = 0; i < 8; ++i)
        payload.push_back(0xFF);
    payload.insert(payload.end(), {0, 0, 0, 0, 0, 0});
    const char fn[] = "LxpInstanceStart";
    payload.insert(payload.end(), fn, fn + sizeof fn);
    payload.insert(payload.end(), {0x63, 0x0a, 0, 0});
    const char msg[] = "[0xc0000034] LxpInstanceInitialize\n";
    payload.insert(payload.end(), msg, msg + sizeof msg);
    etw_extended_item items[2]{};
    items[0].ext_type = 12;
    items[0].data = reinterpret_cast<const uint8_t *>(traits_text);
    items[0].data_size = 37;
    items[1].ext_type = 11;
    items[1].data = reinterpret_cast<const uint8_t *>(meta_text);
    items[1].data_size = 100;
    etw_record r{};
    r.struct_size = sizeof r;
    r.kind = ETW_RECORD_KIND_EVENT;
    r.pointer_size = 8;
    r.extended = items;
    r.extended_count = 2;
    r.payload = payload.data();
    r.payload_size = uint32_t(payload.size());
    const double record_bytes = 80 + 8 + 40 + 8 + 104 + payload.size(); // as stored: header, items, payload
    etw_decoder *d = nullptr;
    etw_decoder_create(&d);
    unsigned long long ok = 0;
    std::string out;
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    for (unsigned long long i = 0; i < n; ++i) {
        const etw_decoded_event *e = nullptr;
        ok += etw_decoder_decode(&e, d, &r) == ETW_OK;
        out.clear();
        for (uint32_t k = 0; e && k < e->property_count; ++k)
            out += e->properties[k].value;
    }
    const double s = seconds_since(t0);
    const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    etw_decoder_destroy(d);
    std::printf("synthetic TraceLogging record (%.0f bytes, 9 fields): wall %.0f records/s, %.1f MB/s; "
                "per CPU s %.0f records/s, %.1f MB/s (%llu decoded)\n",
                record_bytes, n / s, n * record_bytes / s / 1e6, n / cpu, n * record_bytes / cpu / 1e6, ok);
    return ok == n ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc == 3 && std::strcmp(argv[1], "--synthetic") == 0)
        return synthetic(std::strtoull(argv[2], nullptr, 10));
    if (argc < 2) {
        std::fprintf(stderr, "usage: decode-bench FILE... | --synthetic N\n");
        return 1;
    }
    return files(argc, argv);
}
