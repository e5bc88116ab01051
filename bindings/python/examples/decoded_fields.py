"""Write an event of a class the decoder knows, then read its fields by name."""
import os, struct, tempfile, uuid
from openetw import Consumer, LogFileMode, Properties, Provider, Session

GUID = uuid.UUID("6f2c1a3e-9b4d-4e21-8c7a-0123456789ab")
FILE_IO = uuid.UUID("90cbdc39-4a3e-11d1-84f4-0000f80464e3")  # the kernel's FileIo class
path = os.path.join(tempfile.gettempdir(), "decoded-py.etl")
props = Properties("Decoded Python", log_file_name=path, log_file_mode=LogFileMode.FILE_MODE_SEQUENTIAL)
with Provider(GUID) as provider, Session(props) as session:
    session.enable_provider(GUID)
    name = "\\Device\\HarddiskVolume3\\notes.txt\0".encode("utf-16-le")
    provider.write(struct.pack("<Q", 0xFFFF8000DEAD0010) + name, guid=FILE_IO, type=0, version=2)
    session.stop()

with Consumer(path) as consumer:
    for record in consumer:          # fields are decoded on first use, only for records asked
        if record.event_name == "EventTrace/Header":     # every file's first record
            print("Decoded Python: session", record["SessionNameString"], "pointer size", record["PointerSize"])
        elif record.event_name == "FileIo/Name":
            print(f"Decoded Python: {record.event_name} FileName={record['FileName']} "
                  f"FileObject={record.formatted('FileObject')} ({record.fields['FileObject']})")
