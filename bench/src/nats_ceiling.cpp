// The export rows' ceiling, without OpenETW: how fast the local nats-server
// stores the same messages a session's export sends it (64 KiB buffers with
// the export's six headers and a message id), published by libnats itself
// with its asynchronous JetStream API and a window of acknowledgements. Run
// by hand against a nats-server -js (bench/README.md, "The export's
// ceiling"); one JSON line: wall time to the last acknowledgement, MB/s, this
// process's CPU and (with --server-pid) the server's, per message.
#include "common.hpp"

#include <nats/nats.h>

#include <string>
#include <vector>

int main(int argc, char **argv)
{
    const bench::Args a(argc, argv);
    const std::string url = a.str("url", "nats://127.0.0.1:4222");
    const std::string stream = a.str("stream", "CEILING");
    const int messages = int(a.num("messages", 1714)); // the quick export row's buffers
    const int size = int(a.num("size", 65536));
    const int server_pid = int(a.num("server-pid", 0));
    jsOptions jo;
    jsOptions_Init(&jo);
    jo.PublishAsync.MaxPending = std::int64_t(a.num("window", 128)); // the export's window of 64 KiB buffers
    natsConnection *nc = nullptr;
    jsCtx *js = nullptr;
    if (natsConnection_ConnectTo(&nc, url.c_str()) != NATS_OK || natsConnection_JetStream(&js, nc, &jo) != NATS_OK) {
        std::printf("{\"ok\":false,\"message\":\"cannot connect to %s\"}\n", url.c_str());
        return 1;
    }
    jsStreamConfig sc;
    jsStreamConfig_Init(&sc);
    const std::string subjects = stream + ".>";
    const char *subject_list[] = {subjects.c_str()};
    sc.Name = stream.c_str();
    sc.Subjects = subject_list;
    sc.SubjectsLen = 1;
    sc.Storage = js_FileStorage; // as the export creates its stream
    if (js_AddStream(nullptr, js, &sc, nullptr, nullptr) != NATS_OK) {
        std::printf("{\"ok\":false,\"message\":\"cannot create the stream %s (one per run)\"}\n", stream.c_str());
        return 1;
    }
    const std::vector<char> payload(std::size_t(size), 0x22);
    const std::string subject = stream + ".host.session";
    const std::int64_t server0 = server_pid > 0 ? bench::other_process_cpu_ns(server_pid) : -1;
    const std::int64_t cpu0 = bench::process_cpu_ns(), t0 = bench::now_ns();
    natsStatus s = NATS_OK;
    for (int i = 0; i < messages && s == NATS_OK; ++i) {
        natsMsg *m = nullptr;
        const std::string seq = std::to_string(i);
        s = natsMsg_Create(&m, subject.c_str(), nullptr, payload.data(), size);
        const char *headers[][2] = {{"Nats-Msg-Id", nullptr},       {"Openetw-Machine", "host"},
                                    {"Openetw-Session", "session"}, {"Openetw-Start", "133000000000000000"},
                                    {"Openetw-Sequence", nullptr},  {"Openetw-Kind", "buffer"}};
        const std::string id = "host/session/133000000000000000/" + seq;
        headers[0][1] = id.c_str();
        headers[4][1] = seq.c_str();
        for (const auto &h : headers)
            if (s == NATS_OK)
                s = natsMsgHeader_Set(m, h[0], h[1]);
        if (s == NATS_OK)
            s = js_PublishMsgAsync(js, &m, nullptr); // takes the message
        natsMsg_Destroy(m);
    }
    jsPubOptions po;
    jsPubOptions_Init(&po);
    po.MaxWait = 60000;
    if (s == NATS_OK)
        s = js_PublishAsyncComplete(js, &po);
    const double seconds = double(bench::now_ns() - t0) / 1e9;
    const double client_us = double(bench::process_cpu_ns() - cpu0) / 1e3 / messages;
    const std::int64_t server1 = server0 >= 0 ? bench::other_process_cpu_ns(server_pid) : -1;
    if (s != NATS_OK) {
        std::printf("{\"ok\":false,\"message\":\"publishing: %s\"}\n", natsStatus_GetText(s));
        return 1;
    }
    std::printf("{\"ok\":true,\"messages\":%d,\"size\":%d,\"seconds\":%.4f,\"mb_per_s\":%.1f,"
                "\"client_cpu_us_per_message\":%.1f,\"server_cpu_us_per_message\":%.1f}\n",
                messages, size, seconds, double(messages) * size / seconds / 1e6, client_us,
                server1 >= server0 && server0 >= 0 ? double(server1 - server0) / 1e3 / messages : -1.0);
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
    return 0;
}
