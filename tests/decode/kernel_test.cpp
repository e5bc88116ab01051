// The kernel MOF classes: hand-built SYSTEM_TRACE_HEADER and
// EVENT_TRACE_HEADER records of 32- and 64-bit sessions, and the header
// record of the kernel sample against its golden header facts.
#include "decode_helpers.hpp"

#include "decode/kernel_classes.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <memory>

using namespace dectest;

namespace {

struct Kernel {
    EventDecoder decoder;
    DecodedEvent event;
    openetw::format::Problem problem;
    Kernel() { decoder.add_source(std::make_shared<KernelClasses>()); }

    bool decode(std::uint32_t kind, std::uint16_t hook, std::uint16_t version, std::uint32_t ptr, const Bytes &payload)
    {
        etw_record r{};
        r.struct_size = sizeof r;
        r.kind = kind;
        r.hook_id = hook;
        r.version_word = version;
        r.version = version;
        r.opcode = std::uint8_t(hook);
        r.pointer_size = ptr;
        r.payload = payload.b.data();
        r.payload_size = std::uint32_t(payload.b.size());
        return decoder.decode(r, event, problem);
    }
    Pairs values(const Bytes &payload) const
    {
        return flatten(*event.schema, event.nodes, payload.b, event.pointer_size);
    }
};

Bytes process_start(std::uint32_t ptr)
{
    Bytes p;
    auto pointer = [&](std::uint64_t v) { ptr == 8 ? p.u64(v) : p.u32(std::uint32_t(v)); };
    pointer(0xFFFFA0012345ull & (ptr == 8 ? ~0ull : 0xFFFFFFFFull)); // UniqueProcessKey
    p.u32(1234).u32(4).u32(1).u32(0);                                // ProcessId, ParentId, SessionId, ExitStatus
    pointer(0x1AB000);                                               // DirectoryTableBase
    p.u32(0x10);                                                     // Flags (version 4)
    pointer(0xFFFF8000);                                             // TOKEN_USER.Sid
    pointer(0);                                                      // TOKEN_USER.Attributes
    p.u8(1).u8(1).u8(0).u8(0).u8(0).u8(0).u8(0).u8(5).u32(18);       // S-1-5-18
    p.str("cmd.exe").w(u"cmd /c dir").w(u"").w(u"");
    return p;
}

TEST(Kernel, ProcessStartIn32And64BitSessions)
{
    for (std::uint32_t ptr : {4u, 8u}) {
        Kernel k;
        const Bytes p = process_start(ptr);
        ASSERT_TRUE(k.decode(ETW_RECORD_KIND_SYSTEM, 0x0301, 4, ptr, p)) << k.problem.detail;
        EXPECT_EQ(k.event.schema->event_name, "Process/Start");
        EXPECT_EQ(k.event.source, Source::Kernel);
        EXPECT_EQ(k.event.consumed, p.b.size());
        const Pairs want = {{"UniqueProcessKey", ptr == 8 ? "0xFFFFA0012345" : "0xA0012345"},
                            {"ProcessId", "1234"},
                            {"ParentId", "4"},
                            {"SessionId", "1"},
                            {"ExitStatus", "0"},
                            {"DirectoryTableBase", "0x1AB000"},
                            {"Flags", "16"},
                            {"UserSID", "S-1-5-18"},
                            {"ImageFileName", "cmd.exe"},
                            {"CommandLine", "cmd /c dir"},
                            {"PackageFullName", ""},
                            {"ApplicationId", ""}};
        EXPECT_EQ(k.values(p), want) << ptr;
    }
}

TEST(Kernel, NullSidIsFourBytes)
{
    Kernel k;
    Bytes p;
    p.u64(1).u32(8).u32(4).u32(0).u32(0).u64(0).u32(0); // version 3: no Flags
    p.str("System").w(u"");
    ASSERT_TRUE(k.decode(ETW_RECORD_KIND_SYSTEM, 0x0303, 3, 8, p)) << k.problem.detail;
    EXPECT_EQ(k.event.schema->event_name, "Process/DCStart");
    const Pairs v = k.values(p);
    ASSERT_EQ(v.size(), 9u);
    EXPECT_EQ(v[6], (std::pair<std::string, std::string>{"UserSID", ""}));
    EXPECT_EQ(v[7], (std::pair<std::string, std::string>{"ImageFileName", "System"}));
}

TEST(Kernel, TcpIpAndDiskIoAndRegistryFormats)
{
    Kernel k;
    Bytes tcp;
    tcp.u32(4242).u32(1460).u8(10).u8(0).u8(0).u8(1).u8(192).u8(168).u8(0).u8(7).u8(0x01).u8(0xBB).u8(0xC3).u8(0x50);
    tcp.u32(99).u32(0xABCD);
    ASSERT_TRUE(k.decode(ETW_RECORD_KIND_SYSTEM, 0x060B, 2, 4, tcp)) << k.problem.detail;
    EXPECT_EQ(k.event.schema->event_name, "TcpIp/RecvIPV4");
    EXPECT_EQ(k.values(tcp), (Pairs{{"PID", "4242"},
                                    {"size", "1460"},
                                    {"daddr", "10.0.0.1"},
                                    {"saddr", "192.168.0.7"},
                                    {"dport", "443"},
                                    {"sport", "50000"},
                                    {"seqnum", "99"},
                                    {"connid", "0xABCD"}}));

    Bytes reg;
    reg.u64(5).u32(0xC0000034).u32(0).u64(0x80).w(u"\\REGISTRY\\MACHINE");
    ASSERT_TRUE(k.decode(ETW_RECORD_KIND_SYSTEM, 0x090B, 2, 8, reg)) << k.problem.detail;
    EXPECT_EQ(k.event.schema->event_name, "Registry/Open");
    EXPECT_EQ(k.values(reg), (Pairs{{"InitialTime", "5"},
                                    {"Status", "0xC0000034"},
                                    {"Index", "0"},
                                    {"KeyHandle", "0x80"},
                                    {"KeyName", "\\REGISTRY\\MACHINE"}}));

    // DiskIo version 3 has IssuingThreadId; a version-4 record decodes by the version-3 class.
    Bytes disk;
    disk.u32(0).u32(0x60043).u32(4096).u32(0).u64(1048576).u64(0xF1).u64(0xF2).u64(777).u32(88);
    ASSERT_TRUE(k.decode(ETW_RECORD_KIND_SYSTEM, 0x010A, 4, 8, disk)) << k.problem.detail;
    EXPECT_EQ(k.event.schema->event_name, "DiskIo/Read");
    EXPECT_EQ(k.values(disk).back(), (std::pair<std::string, std::string>{"IssuingThreadId", "88"}));
    EXPECT_EQ(k.values(disk)[1], (std::pair<std::string, std::string>{"IrpFlags", "0x60043"}));
    // Version 2 ends before it: the last 4 bytes are left over.
    ASSERT_TRUE(k.decode(ETW_RECORD_KIND_SYSTEM, 0x010B, 2, 8, disk)) << k.problem.detail;
    EXPECT_EQ(k.event.schema->event_name, "DiskIo/Write");
    EXPECT_EQ(k.event.consumed, disk.b.size() - 4);
}

TEST(Kernel, ClassicHeaderRecordsByClassGuid)
{
    Kernel k;
    Bytes p;
    p.u32(0x1000).w(u"\\Device\\HarddiskVolume3\\x.txt");
    etw_record r{};
    r.struct_size = sizeof r;
    r.kind = ETW_RECORD_KIND_FULL;
    r.guid = etw_guid{0x90cbdc39, 0x4a3e, 0x11d1, {0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3}}; // FileIo
    r.opcode = 0;
    r.version = 2;
    r.pointer_size = 4;
    r.payload = p.b.data();
    r.payload_size = std::uint32_t(p.b.size());
    ASSERT_TRUE(k.decoder.decode(r, k.event, k.problem)) << k.problem.detail;
    EXPECT_EQ(k.event.schema->event_name, "FileIo/Name");
    EXPECT_EQ(k.values(p), (Pairs{{"FileObject", "0x1000"}, {"FileName", "\\Device\\HarddiskVolume3\\x.txt"}}));
    r.guid.Data1 ^= 1; // another class
    EXPECT_FALSE(k.decoder.decode(r, k.event, k.problem));
    EXPECT_EQ(k.problem.code, ETW_ERROR_NOT_FOUND);
}

TEST(Kernel, UnknownTypesOlderVersionsAndShortPayloads)
{
    Kernel k;
    Bytes p;
    p.u32(1);
    EXPECT_FALSE(k.decode(ETW_RECORD_KIND_SYSTEM, 0x0377, 3, 8, p)); // no Process type 0x77
    EXPECT_EQ(k.problem.code, ETW_ERROR_NOT_FOUND);
    EXPECT_FALSE(k.decode(ETW_RECORD_KIND_SYSTEM, 0x0301, 1, 8, p)); // no version 1 class
    EXPECT_EQ(k.problem.code, ETW_ERROR_NOT_FOUND);
    EXPECT_FALSE(k.decode(ETW_RECORD_KIND_SYSTEM, 0x0501, 3, 8, p)); // Thread/Start needs more
    EXPECT_EQ(k.problem.code, ETW_ERROR_INVALID_DATA);
    EXPECT_NE(k.problem.detail.find("field 'TThreadId' needs 4 bytes at payload offset 4"), std::string::npos)
        << k.problem.detail;
}

// The kernel sample's first record: the EventTrace_Header class over the
// TRACE_LOGFILE_HEADER. Every value equals the golden header facts
// (etl-samples/golden/etlparser_lxcore_kernel.header.json).
struct HeaderRun {
    EventDecoder decoder;
    DecodedEvent event;
    std::vector<Pairs> headers;
    std::vector<std::string> names;
};

int32_t on_header(void *user, const etw_record *r)
{
    auto *h = static_cast<HeaderRun *>(user);
    openetw::format::Problem problem;
    if (r->kind == ETW_RECORD_KIND_SYSTEM && h->decoder.decode(*r, h->event, problem)) {
        h->names.push_back(h->event.schema->event_name);
        h->headers.push_back(flatten(*h->event.schema, h->event.nodes, h->event.payload, h->event.pointer_size));
    }
    return 0;
}

TEST(Kernel, KernelSampleHeaderRecordDecodes)
{
    HeaderRun h;
    h.decoder.add_source(std::make_shared<KernelClasses>());
    const std::string path = std::string(OPENETW_SAMPLES_DIR) + "/etlparser_lxcore_kernel.etl";
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_CONSUMER_ORDER_FILE;
    o.record = on_header;
    o.user_data = &h;
    etw_consumer *c = nullptr;
    const char *paths[] = {path.c_str()};
    ASSERT_EQ(etw_consumer_open(&c, paths, 1, &o), ETW_OK);
    EXPECT_EQ(etw_consumer_process(c), ETW_OK);
    etw_consumer_close(c);
    ASSERT_EQ(h.names,
              std::vector<std::string>{"EventTrace/Header"}); // the other system record (0x0050) is not a known class
    Pairs v = h.headers[0];
    ASSERT_EQ(v.size(), 23u);
    v.erase(v.begin() + 15); // TimeZoneInformation: 176 bytes of hex
    const Pairs want = {{"BufferSize", "8192"},
                        {"Version", "0x501000A"},
                        {"ProviderVersion", "19041"},
                        {"NumberOfProcessors", "6"},
                        {"EndTime", "132392018832816874"},
                        {"TimerResolution", "156250"},
                        {"MaxFileSize", "0"},
                        {"LogFileMode", "0x0"},
                        {"BuffersWritten", "3"},
                        {"StartBuffers", "1"},
                        {"PointerSize", "8"},
                        {"EventsLost", "0"},
                        {"CPUSpeed", "3000"},
                        {"LoggerName", h.headers[0][13].second},
                        {"LogFileName", h.headers[0][14].second},
                        {"BootTime", "132391907725000000"},
                        {"PerfFreq", "10000000"},
                        {"StartTime", "132392018711387363"},
                        {"ReservedFlags", "1"},
                        {"BuffersLost", "0"},
                        {"SessionNameString", "lxcore_kernel"},
                        {"LogFileNameString", "C:\\Prog\\lxcore_kernel.etl"}};
    EXPECT_EQ(v, want);
}

} // namespace
