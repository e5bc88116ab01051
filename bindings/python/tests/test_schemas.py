"""Schema sources (openetw.Schemas: manifests, provider binaries) and the
EVENT_RECORD callback (on_event_record), on the shared Windows samples. The
HttpService values were read by hand from the payload bytes (the C++ test
tests/decode/manifest_test.cpp checks the same ones); header fields are
compared with the golden record lists."""
import dataclasses
import glob
import json
import os
import pathlib
import subprocess
import sys
import threading
import uuid

import pytest

import openetw
from openetw import Status

SAMPLES = pathlib.Path(os.environ.get("OPENETW_SAMPLES_DIR") or
                       pathlib.Path(__file__).resolve().parents[4] / "shared" / "etl-samples")
MANIFESTS = pathlib.Path(__file__).resolve().parents[3] / "tests" / "decode" / "manifests"
HTTP_MANIFEST = MANIFESTS / "Microsoft-Windows-HttpService.xml"
WEB_DEPLOY = uuid.UUID("ab77e98e-0138-4c77-8bfb-decd33edfe3c")


def web_deploy_dll():
    """The .NET SDK's Web Deploy tracing DLL (a WEVT_TEMPLATE resource), as
    tests/decode/provider_binaries.hpp finds it."""
    roots = [os.environ.get("DOTNET_ROOT", ""), "/usr/share/dotnet", "/usr/lib/dotnet", "/opt/dotnet"]
    for root in filter(None, roots):
        found = glob.glob(f"{root}/sdk/*/Sdks/Microsoft.NET.Sdk.Publish/tools/net472/"
                          "Microsoft.Web.Deployment.Tracing.dll")
        if found:
            return found[0]
    pytest.skip("Microsoft.Web.Deployment.Tracing.dll (.NET SDK) is not installed here")


def events(name, schemas=None):
    with openetw.Consumer(SAMPLES / name, order="file", schemas=schemas) as consumer:
        return [r for r in consumer if r.kind_name == "event"]


def first(records, event_id, payload_hex):
    return next(r for r in records if r.event_id == event_id and r.payload.hex().startswith(payload_hex))


def utf16(text):
    return (text + "\0").encode("utf-16-le")


# ---- manifests ----

def test_http_server_sample_decodes_with_its_manifest():
    records = events("tx_HTTP_Server.etl", openetw.Schemas(manifests=[HTTP_MANIFEST]))
    assert len(records) == 2041  # golden: event:2041
    assert all(r.decoded is not None and r.decoded.source_name == "manifest" for r in records)
    assert {r.provider_name for r in records} == {"Microsoft-Windows-HttpService"}
    assert all(r.decoded.payload_used == len(r.payload) for r in records)
    assert sum(r.event_id == 1 for r in records) == 291
    assert sum(r.event_id == 12 for r in records) == 289
    parse = first(records, 2, "30457c0380faffff04000000")
    assert (parse.event_name, parse.task_name, parse.opcode_name, parse.level_name, parse.keywords_name) == \
        ("HTTPRequestTraceTaskParse", "HTTPRequestTraceTask", "Parse", "Information", "HTTP_KEYWORD_REQUEST")
    assert parse.fields == {"RequestObj": 0xFFFFFA80037C4530, "HttpVerb": 4, "Url": "http://georgis2:80/windir.txt"}
    assert parse.formatted("RequestObj") == "0xFFFFFA80037C4530"
    resp = first(records, 4, "0d060080000000ff0c060060000000ffc80047455400a5000000")
    assert resp.keywords_name == "HTTP_KEYWORD_REQUEST, HTTP_KEYWORD_RESPONSE"
    assert (resp["RequestId"], resp["ConnectionId"]) == (18374686481819108877, 18374686481282237964)
    assert (resp["StatusCode"], resp["Verb"], resp["HeaderLength"], resp["EntityChunkCount"]) == (200, "GET", 165, 1)
    write = first(records, 51, "00000000280e0080ffffffff")
    assert (write["Handle"], write["ResType"], write["SiteId"]) == (0xFFFFFFFF80000E28, "CacheMiss", 0)


def test_without_the_manifest_nothing_decodes():
    records = events("tx_HTTP_Server.etl")  # the default schemas: no manifest loaded
    assert len(records) == 2041 and all(r.decoded is None for r in records)


def test_every_thread_decodes_with_every_source_loaded_so_far():
    record = events("tx_HTTP_Server.etl")[0]
    schemas = openetw.Schemas()
    seen = {}

    def other_thread(key):
        decoded = schemas.decode(record)
        seen[key] = decoded and decoded.event_name

    t = threading.Thread(target=other_thread, args=("before",))
    t.start(); t.join()
    assert schemas.decode(record) is None and seen["before"] is None
    schemas.load_manifest_text(HTTP_MANIFEST.read_bytes())  # after this thread's decoder exists
    for key in ("after", "again"):
        t = threading.Thread(target=other_thread, args=(key,))
        t.start(); t.join()
    assert seen["after"] == seen["again"] == schemas.decode(record).event_name == "HTTPConnectionTraceTaskConnConnect"
    assert schemas.source_count == 1


def test_module_level_load_manifest_feeds_the_default_schemas():
    # A child process: the default schemas are global, and other tests expect them empty.
    script = (f"import openetw\n"
              f"c = openetw.Consumer({str(SAMPLES / 'tx_HTTP_Server.etl')!r}, order='file')\n"
              f"r = next(r for r in c if r.kind_name == 'event')\n"
              f"assert openetw.decode(r) is None\n"
              f"openetw.load_manifest({str(HTTP_MANIFEST)!r})\n"
              f"print(openetw.decode(r).event_name, r.event_name)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["HTTPConnectionTraceTaskConnConnect"] * 2


# ---- provider binaries ----

def web_deploy_record(event_id, version, payload):
    """A record of the Web Deploy provider (a real sample's record, re-addressed)."""
    return dataclasses.replace(events("tx_HTTP_Server.etl")[0], guid=WEB_DEPLOY, event_id=event_id,
                               version=version, payload=payload, extended=())


@pytest.mark.parametrize("how", ["path", "image"])
def test_web_deploy_binary_decodes_with_its_message_table_names(how):
    dll = web_deploy_dll()
    schemas = openetw.Schemas()
    if how == "path":
        schemas.load_binary(dll)
    else:
        schemas.load_binary_image(pathlib.Path(dll).read_bytes())
    # Event 27000 version 1: ErrorCode (win:Int32), Message, StackTrace; level win:Error.
    e = schemas.decode(web_deploy_record(27000, 1, (-5).to_bytes(4, "little", signed=True) +
                                         utf16("boom") + utf16("at Main()")))
    assert (e.provider_name, e.level_name, e.task_name, e.opcode_name) == \
        ("Microsoft-Windows-WebDeploy", "Error", "", "")
    assert e.fields == {"ErrorCode": -5, "Message": "boom", "StackTrace": "at Main()"}
    g = schemas.decode(web_deploy_record(27004, 0, utf16("m") + utf16("u") + utf16("s")))
    assert g.level_name == "Warning" and g.fields == {"Message": "m", "User": "u", "SiteName": "s"}
    assert schemas.decode(web_deploy_record(27000, 0, b"")) is None  # the version is part of the key


def test_binaries_argument_and_the_default_knowing_nothing():
    dll = web_deploy_dll()
    record = web_deploy_record(27004, 0, utf16("m") + utf16("u") + utf16("s"))
    assert openetw.Schemas().decode(record) is None
    assert openetw.Schemas(binaries=[dll]).decode(record).level_name == "Warning"


# ---- bad inputs: the library's status and message; the schemas stay as they were ----

def test_bad_sources_raise_the_status_and_message_and_keep_what_was_loaded(tmp_path):
    schemas = openetw.Schemas(manifests=[HTTP_MANIFEST])
    record = events("tx_HTTP_Server.etl")[0]
    missing = tmp_path / "missing.man"
    with pytest.raises(openetw.NotFoundError) as error:
        schemas.load_manifest(missing)
    assert error.value.status == Status.FILE_NOT_FOUND and "missing.man" in error.value.message
    bad_xml = tmp_path / "bad.man"
    bad_xml.write_text("<instrumentationManifest>\n<events><provider name='x'>\n</events>")
    with pytest.raises(openetw.InvalidDataError) as error:
        schemas.load_manifest(bad_xml)
    assert error.value.status == Status.INVALID_DATA and "bad.man" in error.value.message
    with pytest.raises(openetw.InvalidDataError) as error:
        schemas.load_manifest_text(b"<instrumentationManifest")
    assert "(memory)" in error.value.message
    not_pe = tmp_path / "notes.dll"
    not_pe.write_bytes(b"just some text, not an MZ image" * 8)
    with pytest.raises(openetw.InvalidDataError) as error:
        schemas.load_binary(not_pe)
    assert error.value.status == Status.INVALID_DATA and "notes.dll" in error.value.message
    with pytest.raises(openetw.NotFoundError) as error:
        schemas.load_binary(tmp_path / "missing.dll")
    assert error.value.status == Status.FILE_NOT_FOUND
    with pytest.raises(openetw.InvalidDataError):
        schemas.load_binary_image(b"MZ")
    assert schemas.source_count == 1
    assert schemas.decode(record).event_name == "HTTPConnectionTraceTaskConnConnect"
    seen = []
    t = threading.Thread(target=lambda: seen.append(schemas.decode(record).event_name))
    t.start(); t.join()
    assert seen == ["HTTPConnectionTraceTaskConnConnect"]  # a fresh thread replays the good source only


def test_a_pe_image_without_wevt_template_is_not_found():
    # A managed .NET assembly of the SDK: a PE image with no WEVT_TEMPLATE resource.
    dll = pathlib.Path(web_deploy_dll()).parents[4] / "dotnet.dll"
    if not dll.is_file():
        pytest.skip(f"{dll} is not installed here")
    with pytest.raises(openetw.NotFoundError) as error:
        openetw.Schemas().load_binary(dll)
    assert error.value.status == Status.NOT_FOUND and "WEVT_TEMPLATE" in error.value.message


def test_consumer_rejects_what_is_not_schemas():
    with pytest.raises(TypeError, match="schemas"):
        openetw.Consumer(SAMPLES / "tx_HTTP_Server.etl", schemas=[HTTP_MANIFEST])


# ---- EVENT_RECORD delivery ----

def golden_events(name):
    with open(SAMPLES / "golden" / f"{name}.records.jsonl") as f:
        return [g for g in map(json.loads, f) if g["kind"] == "event"]


def event_records(name, schemas=None):
    seen, records = [], []
    with openetw.Consumer(SAMPLES / f"{name}.etl", order="file", schemas=schemas,
                          on_record=lambda r: records.append(r) if r.kind_name == "event" else None,
                          on_event_record=seen.append) as consumer:
        consumer.process()
    return seen, records


def check_against_golden(name, schemas=None):
    seen, records = event_records(name, schemas)
    golden = golden_events(name)
    assert len(seen) == len(golden) == len(records)
    for e, g, r in zip(seen, golden, records):
        assert isinstance(e, openetw.EventRecord)
        assert (e.id, e.version, e.level, e.opcode) == (g["event_id"], g["version"], g["level"], g["opcode"])
        assert (e.provider_id, e.process_id, e.thread_id, e.timestamp) == \
            (uuid.UUID(g["guid"]), g["process_id"], g["thread_id"], g["timestamp_filetime"])
        # What the golden lists lack, against the record callback's facts.
        assert (e.task, e.channel, e.keyword, e.flags, e.event_property) == \
            (r.task, r.channel, r.keyword, r.event_flags, r.event_property)
        assert e.activity_id == r.activity_id and (e.kernel_time, e.user_time) == (r.kernel_time, r.user_time)
        assert e.user_data == r.payload and len(e.user_data) == e.user_data_length
        assert e.extended_data == r.extended and len(e.extended_data) == e.extended_data_count
        assert e.record == r
    return seen


def test_event_records_of_a_tracelogging_sample():
    (e,) = check_against_golden("pv_SelfDescribingSingleEvent")  # its 18 classic records do not come
    assert e.id == 3 and e.extended_data_count >= 1
    assert (e.event_name, e.provider_name) == ("TestEvent", "MySource")
    assert e.fields == {"a": {"b": "Hello", "c": "World!"}} and e["a"]["b"] == "Hello"


def test_event_records_of_the_bond_sample():
    seen = check_against_golden("tx_BondEtwSample")
    assert seen and all(e.decoded is None for e in seen)  # manifest-based: no manifest here


def test_event_records_of_the_http_sample_decode_with_the_consumers_schemas():
    seen = check_against_golden("tx_HTTP_Server", openetw.Schemas(manifests=[HTTP_MANIFEST]))
    assert len(seen) == 2041 and all(e.provider_name == "Microsoft-Windows-HttpService" for e in seen)
    parse = first([e.record for e in seen], 2, "30457c0380faffff04000000")
    event = next(e for e in seen if e.record is parse)
    assert event.event_name == "HTTPRequestTraceTaskParse" and event["Url"] == "http://georgis2:80/windir.txt"
    assert event.datetime.year == 2011


def test_event_record_callback_stops_and_raises():
    count = []

    def stop_at_five(event):
        count.append(event)
        return len(count) == 5

    with openetw.Consumer(SAMPLES / "tx_HTTP_Server.etl", on_event_record=stop_at_five) as consumer:
        with pytest.raises(openetw.CancelledError):
            consumer.process()
    assert len(count) == 5

    def boom(event):
        raise RuntimeError("from on_event_record")

    with openetw.Consumer(SAMPLES / "tx_HTTP_Server.etl", on_event_record=boom) as consumer:
        with pytest.raises(RuntimeError, match="from on_event_record"):
            consumer.process()


# ---- a live trace this binding writes, decoded with a manifest ----

CONTOSO = uuid.UUID("3c1f6a52-8e0b-4d7e-9a41-5b2e7d9c0f13")
CONTOSO_MANIFEST = f"""<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"><instrumentation><events>
  <provider name="Contoso-Orders" guid="{{{CONTOSO}}}" symbol="CONTOSO">
    <opcodes><opcode name="Shipped" value="10"/></opcodes>
    <templates><template tid="Order">
      <data name="OrderId" inType="win:UInt32"/><data name="Customer" inType="win:UnicodeString"/>
    </template></templates>
    <events><event value="1" version="0" opcode="Shipped" level="win:Informational" template="Order"/></events>
  </provider></events></instrumentation></instrumentationManifest>"""


def test_live_trace_events_decode_with_its_schemas(name):
    schemas = openetw.Schemas()
    schemas.load_manifest_text(CONTOSO_MANIFEST)
    got, plain = [], []
    with openetw.Provider(CONTOSO) as provider:
        with openetw.LiveTrace(name, [(CONTOSO, openetw.Level.VERBOSE)], got.append, schemas=schemas):
            with openetw.LiveTrace(name + " plain", [(CONTOSO, openetw.Level.VERBOSE)], plain.append):
                for i in range(3):
                    provider.write(i.to_bytes(4, "little") + utf16(f"Customer {i}"), type=10, level=4)
    assert [(e.provider_name, e.opcode_name, e["OrderId"], e["Customer"]) for e in got] == \
        [("Contoso-Orders", "Shipped", i, f"Customer {i}") for i in range(3)]
    assert len(plain) == 3 and all(e.decoded is None for e in plain)  # the default schemas lack it
