"""Start a file session, write classic events, stop, and read them back."""
import os, tempfile, uuid
from openetw import Consumer, Level, LogFileMode, Properties, Provider, Session

GUID = uuid.UUID("6f2c1a3e-9b4d-4e21-8c7a-0123456789ab")
path = os.path.join(tempfile.gettempdir(), "quickstart-py.etl")
props = Properties("Quickstart Python", log_file_name=path,
                   log_file_mode=LogFileMode.FILE_MODE_SEQUENTIAL)
with Provider(GUID, lambda info: print("enabled:", info.is_enabled, "level:", info.level)) as provider, \
        Session(props) as session:
    session.enable_provider(GUID, level=Level.INFORMATION)
    for i in range(3):
        provider.write(f"hello #{i}".encode(), type=10, level=Level.INFORMATION, version=1)
    provider.write(b"filtered out", type=10, level=Level.VERBOSE)
    stats = session.stop()          # errors raise openetw.Error (with .status)
    print("stopped:", stats.buffers_written, "buffers written,", stats.events_lost, "events lost")

with Consumer(path) as consumer:
    for record in consumer:         # or Consumer(path, on_event=...).process()
        if record.kind_name == "full":
            print(f"type {record.opcode} level {record.level} v{record.version}: {record.payload.decode()}")
    print(consumer.logfile_header().logger_name, consumer.stats().records, "records")
