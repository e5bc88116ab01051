"""Export a session to NATS JetStream, read the stream back, collect it into .etl files."""
import os, socket, tempfile, uuid
from openetw import Provider, Properties, Session, Stream

# The nats-server and its credentials file: the test harness names them (never in the URL).
stream = Stream(os.environ["OPENETW_EXAMPLE_NATS_URL"] + "/FLEETPY",
                credentials_file=os.environ["OPENETW_EXAMPLE_NATS_CREDENTIALS"])
GUID = uuid.UUID("0a4f3c2e-5d6b-4a7c-9e8f-1b2c3d4e5f60")
work = tempfile.mkdtemp()
local = os.path.join(work, "fleet.etl")

props = stream.export(Properties("Fleet Python", log_file_name=local))  # the file, and the stream
with Provider(GUID) as provider, Session(props) as session:
    session.enable_provider(GUID)
    for i in range(1000):
        provider.write(i.to_bytes(4, "little"), type=10)
    session.stop()                          # returns once the stream acknowledged every buffer

with stream.open() as consumer:             # read as a file: one per machine's session instance
    events = [(source, r) for source, r in consumer.events() if r.kind_name == "full"]
mine = [r for source, r in events if source.session == "Fleet Python" and source.machine == socket.gethostname()]

collected = os.path.join(work, "collected")
os.mkdir(collected)
report = stream.collect(collected, session="Fleet Python")  # MACHINE.SESSION.START.etl, byte for byte
f = report.files[0]
same = open(f.path, "rb").read() == open(local, "rb").read()
print(f"Fleet Python: {len(mine)} events read back, {len(report.files)} file collected "
      f"({f.outcome}, complete={f.complete}, identical={same})")
