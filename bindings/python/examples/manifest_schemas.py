"""Decode a provider's events with its instrumentation manifest (openetw.Schemas)."""
import os, struct, tempfile, uuid
from openetw import Consumer, LogFileMode, Properties, Provider, Schemas, Session

GUID = uuid.UUID("3c1f6a52-8e0b-4d7e-9a41-5b2e7d9c0f13")
MANIFEST = f"""<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"><instrumentation><events>
  <provider name="Contoso-Orders" guid="{{{GUID}}}" symbol="CONTOSO">
    <opcodes><opcode name="Shipped" value="10"/></opcodes>
    <templates><template tid="Order">
      <data name="OrderId" inType="win:UInt32"/><data name="Customer" inType="win:UnicodeString"/>
    </template></templates>
    <events><event value="1" version="0" opcode="Shipped" level="win:Informational" template="Order"/></events>
  </provider></events></instrumentation></instrumentationManifest>"""

schemas = Schemas()                  # or Schemas(manifests=["Contoso.man"], binaries=["contoso.dll"])
schemas.load_manifest_text(MANIFEST)  # a bad manifest raises openetw.InvalidDataError naming the line
path = os.path.join(tempfile.gettempdir(), "manifest-py.etl")
props = Properties("Manifest Python", log_file_name=path, log_file_mode=LogFileMode.FILE_MODE_SEQUENTIAL)
with Provider(GUID) as provider, Session(props) as session:
    session.enable_provider(GUID)
    provider.write(struct.pack("<I", 4711) + "Fabrikam\0".encode("utf-16-le"), type=10, level=4)
    session.stop()

with Consumer(path, schemas=schemas) as consumer:
    for record in consumer:
        if record.provider_name == "Contoso-Orders":
            print(f"Manifest Python: {record.provider_name}/{record.opcode_name} "
                  f"OrderId={record['OrderId']} Customer={record['Customer']}")
