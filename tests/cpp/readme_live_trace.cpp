// The README's C++ example: a live trace of 100,000 events from 2 threads, every one received.
// README.md shows this file verbatim, laid out for reading there.
// clang-format off
#include <openetw/openetw.hpp>

#include <atomic>
#include <cstdio>
#include <thread>

int main()
{
    const etw_guid guid = openetw::guid_from_string("6f2c1a3e-9b4d-4e21-8c7a-0123456789ab");
    openetw::provider provider(guid);
    std::atomic<int> received{0};
    openetw::live_trace trace("Live C++", {{.guid = guid, .level = ETW_LEVEL_INFORMATION}},
                              [&](const openetw::event &e) { received += e.text() == "hello"; });

    auto write = [&] { for (int i = 0; i < 50000; ++i) provider.write(10, ETW_LEVEL_INFORMATION, "hello"); };
    std::thread a(write), b(write);
    a.join(), b.join();
    const openetw::properties &done = trace.stop(); // every event logged has been delivered
    std::printf("Live C++: %d events received, %u lost\n", received.load(), done.events_lost());
    return received == 100000 && done.events_lost() == 0 ? 0 : 1;
}
