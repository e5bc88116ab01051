// Ctrl-C (SIGINT) and SIGTERM end the following of a live session as its
// stop would: the consumer is cancelled, so what was read is still sent
// (--otlp) and reported. Not on Windows, where they end the program.
#pragma once

#include <openetw/openetw.h>

namespace etwdump {

// Before any thread starts: the signals are blocked in every thread, so only
// the waiter that watch() starts receives them.
void hold_interrupts();
// Starts the waiter: a signal cancels consumer.
void watch_interrupts(etw_consumer *consumer);
// Before the consumer is closed: a cancel under way has returned, and a
// later signal ends the program at once (exit status 128 + the signal).
void stop_watching_interrupts();
// Whether a signal ended the processing.
bool interrupted();

} // namespace etwdump
