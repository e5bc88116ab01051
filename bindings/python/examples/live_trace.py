"""A live trace: 100,000 events from 2 threads, every one delivered."""
import threading, uuid
from openetw import Level, LiveTrace, Provider

GUID = uuid.UUID("6f2c1a3e-9b4d-4e21-8c7a-0123456789ab")
received = []
with Provider(GUID) as provider, \
        LiveTrace("Live Python", [(GUID, Level.INFORMATION)], on_event=received.append) as trace:
    def write():
        for _ in range(50_000):
            provider.write(b"hello", type=10, level=Level.INFORMATION)
    threads = [threading.Thread(target=write) for _ in range(2)]
    for t in threads: t.start()
    for t in threads: t.join()
print(f"Live Python: {len(received)} events received, {trace.events_lost} lost")
