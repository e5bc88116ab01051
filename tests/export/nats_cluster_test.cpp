// A session exporting to a three-node JetStream cluster (a stream with
// three replicas) while a provider writes: the node that leads the stream
// (and the export's client is connected to) is killed with SIGKILL mid-run,
// the client moves to another node of the URL's list, the stream elects
// another leader, and at the end the stream holds every buffer of the
// file, once, byte for byte. And with two nodes of three gone the stream has
// no quorum: a tiny spool fills, and what it cannot take is counted, the
// rest arrives once the nodes are back.
#include "../engine/engine_test_util.hpp"
#include "export/nats_export.hpp"
#include "nats_cluster.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

using namespace openetw;
using namespace enginetest;
using natstest::NatsCluster;

namespace {

const etw_guid kProvider = make_guid(0x7a75e0c3);

// A client of the cluster for the test's own questions (stream setup,
// counts, the leader's name).
struct Client {
    natsConnection *nc = nullptr;
    jsCtx *js = nullptr;
    explicit Client(const NatsCluster &c)
    {
        std::vector<std::string> servers;
        std::vector<const char *> list;
        for (int i = 0; i < NatsCluster::kNodes; ++i)
            servers.push_back("nats://127.0.0.1:" + std::to_string(c.port(i)));
        for (const std::string &one : servers)
            list.push_back(one.c_str());
        natsOptions *o = nullptr;
        natsOptions_Create(&o);
        natsOptions_SetServers(o, list.data(), int(list.size()));
        natsOptions_SetMaxReconnect(o, -1);
        EXPECT_EQ(natsConnection_Connect(&nc, o), NATS_OK);
        natsOptions_Destroy(o);
        EXPECT_EQ(natsConnection_JetStream(&js, nc, nullptr), NATS_OK);
    }
    ~Client()
    {
        jsCtx_Destroy(js);
        natsConnection_Destroy(nc);
    }
    // The stream with three replicas, once the cluster has elected the
    // leader of its metadata (bounded: a cluster that never forms fails here).
    void add_replicated_stream(const std::string &stream)
    {
        const std::string subjects = stream + ".>";
        const char *subj[] = {subjects.c_str()};
        jsStreamConfig cfg;
        jsStreamConfig_Init(&cfg);
        cfg.Name = stream.c_str();
        cfg.Subjects = subj;
        cfg.SubjectsLen = 1;
        cfg.Storage = js_FileStorage;
        cfg.Replicas = 3;
        natsStatus s = NATS_ERR;
        for (int i = 0; i < 300 && s != NATS_OK; ++i) {
            jsStreamInfo *si = nullptr;
            jsErrCode jerr = jsErrCode(0);
            s = js_AddStream(&si, js, &cfg, nullptr, &jerr);
            jsStreamInfo_Destroy(si);
            if (s != NATS_OK)
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        ASSERT_EQ(s, NATS_OK) << "the cluster did not accept a replicated stream: " << nats_GetLastError(nullptr);
    }
    // The stream's leader and message count, or "" when it has none now.
    std::string leader(const std::string &stream, std::uint64_t *messages = nullptr)
    {
        jsStreamInfo *si = nullptr;
        std::string name;
        if (js_GetStreamInfo(&si, js, stream.c_str(), nullptr, nullptr) == NATS_OK) {
            if (si->Cluster && si->Cluster->Leader)
                name = si->Cluster->Leader;
            if (messages)
                *messages = si->State.Msgs;
        }
        jsStreamInfo_Destroy(si);
        return name;
    }
    // Asks the stream's leader to step down until the node named want
    // leads it (each election picks among the others; bounded).
    bool lead_from(const std::string &stream, const std::string &want)
    {
        const std::string subject = "$JS.API.STREAM.LEADER.STEPDOWN." + stream;
        for (int i = 0; i < 100; ++i) {
            const std::string now = leader(stream);
            if (now == want)
                return true;
            if (!now.empty()) {
                natsMsg *reply = nullptr;
                natsConnection_Request(&reply, nc, subject.c_str(), "", 0, 2000);
                natsMsg_Destroy(reply);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return false;
    }
};

} // namespace

TEST(ExportNatsCluster, KillingTheStreamLeaderMidRunLosesNothing)
{
    NatsCluster cluster;
    Client client(cluster);
    client.add_replicated_stream("FLEET");
    const std::string url = cluster.url("FLEET");

    const std::string file = temp_file("export-cluster");
    Props props(unique_name("ExportCluster"), file);
    ASSERT_EQ(etw_properties_set_export(props, url.c_str(), nullptr), ETW_OK) << etw_last_error_message();
    etw_session_options opt{};
    opt.struct_size = sizeof opt;
    opt.flags = ETW_SESSION_IN_PROCESS;
    SessionHandle s;
    ASSERT_EQ(etw_session_start_ex(&s.s, props, &opt), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(etw_session_enable_provider(s, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, ETW_LEVEL_VERBOSE, 0, 0),
              ETW_OK);
    // The node to kill is both the one the export's client talks to and
    // the stream's leader: the client must move, and the stream must elect.
    const int victim = cluster.node_of_client("openetw export of " + std::string(etw_properties_session_name(props)));
    ASSERT_GE(victim, 0) << "the export is connected to a node of the cluster";
    const std::string leader = NatsCluster::name_of(victim);
    ASSERT_TRUE(client.lead_from("FLEET", leader)) << leader << " never led the stream";

    // The provider writes in rounds, each flushed, so buffers keep going
    // out; half-way it waits for the kill, so the node dies mid-run with
    // buffers behind it, queued and still to come.
    constexpr std::uint32_t kRounds = 40, kPerRound = 2000;
    std::atomic<bool> half{false}, killed{false};
    std::thread writer;
    // A failed assertion below returns early: the writer is released and
    // joined, never left waiting for a kill that will not come.
    struct Release {
        std::atomic<bool> &killed;
        std::thread &writer;
        ~Release()
        {
            killed = true;
            if (writer.joinable())
                writer.join();
        }
    } release{killed, writer};
    writer = std::thread([&] {
        Provider p(kProvider);
        Event ev(kProvider, 100);
        for (std::uint32_t r = 0; r < kRounds; ++r) {
            for (std::uint32_t i = 0; i < kPerRound; ++i) {
                const std::uint32_t n = r * kPerRound + i;
                std::memcpy(ev.bytes + 0x30, &n, 4);
                EXPECT_EQ(etw_provider_trace_event(p, ev.h()), ETW_OK);
            }
            EXPECT_EQ(etw_session_flush(s, nullptr), ETW_OK);
            if (r + 1 == kRounds / 2) {
                half = true;
                while (!killed)
                    std::this_thread::yield();
            }
        }
    });
    // Mid-run: some buffers are in the stream, the provider still writes.
    while (!half)
        std::this_thread::yield();
    std::uint64_t stored = 0;
    for (int i = 0; i < 1000 && stored < 5; ++i) {
        client.leader("FLEET", &stored);
        if (stored < 5)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_GE(stored, 5u);
    ASSERT_EQ(client.leader("FLEET"), leader);
    cluster.kill9(victim);
    killed = true;
    writer.join();
    // The election is the cluster's (4-9 s of raft timeouts, more on a busy
    // machine): waited for here, bounded, so that the stop's 20 s are for
    // the acknowledgements, not the vote.
    std::string elected;
    for (int i = 0; i < 600 && (elected.empty() || elected == leader); ++i) {
        elected = client.leader("FLEET");
        if (elected.empty() || elected == leader)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_FALSE(elected.empty()) << "the stream elected no leader within 30 s";

    ASSERT_EQ(etw_session_stop(s, props), ETW_OK) << etw_last_error_message();
    etw_session_close(s.s);
    s.s = nullptr;
    const etw_event_trace_properties final = props.rec();
    EXPECT_EQ(final.EventsLost, 0u);
    EXPECT_EQ(final.RealTimeBuffersLost, 0u) << "nothing dropped from the export";

    std::ifstream f(file, std::ios::binary);
    const std::vector<std::uint8_t> etl{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    const std::size_t bs = std::size_t(final.BufferSize) * 1024;
    ASSERT_EQ(etl.size() % bs, 0u);
    const std::size_t file_buffers = etl.size() / bs;
    std::vector<exporter::StreamTrace> traces;
    const Status st = exporter::read_nats_stream(url, "", &traces);
    ASSERT_TRUE(st) << st.message;
    ASSERT_EQ(traces.size(), 1u);
    EXPECT_TRUE(traces[0].stopped);
    ASSERT_EQ(traces[0].buffers + 1, file_buffers) << "every buffer of the file is in the stream";
    ASSERT_EQ(traces[0].etl.size(), etl.size());
    for (std::size_t b = 0; b < file_buffers; ++b)
        EXPECT_EQ(std::memcmp(traces[0].etl.data() + b * bs, etl.data() + b * bs, bs), 0) << "buffer " << b;
    std::uint64_t messages = 0;
    const std::string new_leader = client.leader("FLEET", &messages);
    EXPECT_EQ(messages, file_buffers + 1) << "header, data buffers and final header, each once";
    EXPECT_NE(new_leader, leader) << "another node leads the stream now";
}

TEST(ExportNatsCluster, AFullSpoolWhileTheStreamHasNoQuorumIsCountedAndNothingElseIsLost)
{
    NatsCluster cluster;
    Client client(cluster);
    client.add_replicated_stream("NOQUORUM");
    const std::string url = cluster.url("NOQUORUM");
    const std::string file = temp_file("export-noquorum");
    Props props(unique_name("ExportNoQuorum"), file);
    ASSERT_EQ(etw_properties_set_export(props, url.c_str(), nullptr), ETW_OK) << etw_last_error_message();
    etw_session_options opt{};
    opt.struct_size = sizeof opt;
    opt.flags = ETW_SESSION_IN_PROCESS;
    // Room for three 64 KiB buffers with their tags.
    ASSERT_EQ(setenv("OPENETW_SPOOL_BYTES", std::to_string(3 * (65536 + 200)).c_str(), 1), 0);
    SessionHandle s;
    ASSERT_EQ(etw_session_start_ex(&s.s, props, &opt), ETW_OK) << etw_last_error_message();
    unsetenv("OPENETW_SPOOL_BYTES");
    ASSERT_EQ(etw_session_enable_provider(s, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, ETW_LEVEL_VERBOSE, 0, 0),
              ETW_OK);
    // The export's node stays; the other two go: publishes reach a node of a
    // stream that cannot store anything.
    const int kept = cluster.node_of_client("openetw export of " + std::string(etw_properties_session_name(props)));
    ASSERT_GE(kept, 0);
    for (int i = 0; i < NatsCluster::kNodes; ++i)
        if (i != kept)
            cluster.kill9(i);
    {
        Provider p(kProvider);
        Event ev(kProvider, 100);
        for (std::uint32_t n = 0; n < 30000; ++n) { // about 60 buffers
            std::memcpy(ev.bytes + 0x30, &n, 4);
            ASSERT_EQ(etw_provider_trace_event(p, ev.h()), ETW_OK);
        }
    }
    ASSERT_EQ(etw_session_flush(s, nullptr), ETW_OK);
    ASSERT_EQ(etw_session_query(s, props), ETW_OK);
    const std::uint32_t lost_while_down = props.rec().RealTimeBuffersLost;
    EXPECT_GT(lost_while_down, 0u) << "the spool is full: what it cannot take is counted";
    for (int i = 0; i < NatsCluster::kNodes; ++i)
        if (i != kept)
            cluster.restart(i);
    // Quorum again once the stream has a leader (the vote bounded at 30 s, as above).
    bool led = false;
    for (int i = 0; i < 600 && !led; ++i) {
        led = !client.leader("NOQUORUM").empty();
        if (!led)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_TRUE(led) << "the stream elected no leader within 30 s of the nodes' return";
    ASSERT_EQ(etw_session_stop(s, props), ETW_OK) << etw_last_error_message();
    etw_session_close(s.s);
    s.s = nullptr;
    const etw_event_trace_properties final = props.rec();
    EXPECT_EQ(final.EventsLost, 0u) << "the file has every event";
    EXPECT_GE(final.RealTimeBuffersLost, lost_while_down);

    // Every data buffer is in the stream, byte for byte as in the file, or
    // counted; a dropped one leaves a gap in the sequences that readers
    // report, never a silent renumbering.
    std::ifstream f(file, std::ios::binary);
    const std::vector<std::uint8_t> etl{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    const std::size_t bs = std::size_t(final.BufferSize) * 1024;
    ASSERT_EQ(etl.size(), (std::size_t(final.BuffersWritten) + 1) * bs);
    std::vector<exporter::StreamInstance> instances;
    std::uint64_t skipped = 0;
    const Status st = exporter::fetch_nats_stream(url, "", exporter::StreamFilter{}, &instances, &skipped);
    ASSERT_TRUE(st) << st.message;
    ASSERT_EQ(instances.size(), 1u);
    const exporter::StreamInstance &inst = instances[0];
    ASSERT_FALSE(inst.end.empty()) << "the final header arrived";
    EXPECT_EQ(inst.end_sequence, std::uint64_t(final.BuffersWritten) + 1);
    EXPECT_EQ(inst.data.size() + final.RealTimeBuffersLost, final.BuffersWritten);
    for (const auto &[sequence, bytes] : inst.data) {
        ASSERT_LE(sequence, final.BuffersWritten);
        ASSERT_EQ(bytes.size(), bs);
        EXPECT_EQ(std::memcmp(bytes.data(), etl.data() + sequence * bs, bs), 0) << "buffer " << sequence;
    }
    const exporter::CollectedTrace collected = exporter::assemble_instance(inst);
    ASSERT_FALSE(collected.complete()) << "the gaps are reported";
    EXPECT_NE(collected.missing.back().find(std::to_string(final.RealTimeBuffersLost) + " of " +
                                            std::to_string(final.BuffersWritten) + " data buffers"),
              std::string::npos)
        << collected.missing.back();
}
