#!/usr/bin/env python3
"""Conformance runner for the Python binding: python3 runner.py scenario.txt

Needs the openetw package importable (PYTHONPATH=<build>/bindings/python).
Format and verbs: tests/conformance/README.md.
"""
from __future__ import annotations

import os
import re
import shutil
import struct
import sys
import tempfile
import threading
import uuid

import openetw

U32_MEMBERS = {"buffer_size", "minimum_buffers", "maximum_buffers", "maximum_file_size",
               "log_file_mode", "flush_timer", "enable_flags", "clock_type"}
OUTPUT_MEMBERS = {"number_of_buffers", "free_buffers", "events_lost", "buffers_written",
                  "log_buffers_lost", "real_time_buffers_lost", "logger_thread_id",
                  "historical_context"}
STRING_MEMBERS = {"session_name", "log_file_name"}
# start flags=: each ETW_SESSION_* start option bit and the Session keyword it sets.
START_OPTIONS = (("ETW_SESSION_LOSSLESS", "lossless"), ("ETW_SESSION_REPLACE_ORPHAN", "replace_orphan"),
                 ("ETW_SESSION_TAKE_OVER_ORPHAN", "take_over_orphan"))


# TraceLogging field types of write_tl / expect_tl: the in-type written and decoded,
# and how the text value reads.
TL_TYPES = {"i32": (openetw.InType.INT32, int), "u32": (openetw.InType.UINT32, int),
            "i64": (openetw.InType.INT64, int), "u64": (openetw.InType.UINT64, int),
            "f64": (openetw.InType.DOUBLE, float), "bool": (openetw.InType.BOOL32, int),
            "str": (openetw.InType.ANSISTRING, str)}


class Failure(Exception):
    pass


class Str(str):
    """A quoted value (as opposed to a bare word)."""


def tokenize(line: str) -> list[tuple[str, object]]:
    """[(key, value)], the verb as ('', word); '#' outside quotes ends the line."""
    tokens, i, n = [], 0, len(line)
    while i < n:
        if line[i].isspace():
            i += 1
            continue
        if line[i] == "#":
            break
        m = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)=").match(line, i)
        key = ""
        if m:
            key, i = m.group(1), m.end()
        if i < n and line[i] == '"':
            text, i = [], i + 1
            while i < n and line[i] != '"':
                if line[i] == "\\" and i + 1 < n:
                    i += 1
                text.append(line[i])
                i += 1
            if i >= n:
                raise Failure("unterminated string")
            i += 1
            value: object = Str("".join(text))
            m = re.compile(r"\*(\d+)").match(line, i)
            if m:
                value, i = Str(value * int(m.group(1))), m.end()
        else:
            j = i
            while j < n and not line[j].isspace():
                j += 1
            value, i = line[i:j], j
        tokens.append((key, value))
    return tokens


def number(value: object) -> int:
    """An integer, or ETW_* constants joined with '|', resolved through the binding."""
    if isinstance(value, Str):
        raise Failure(f"expected a number, got {value!r}")
    total = 0
    for part in str(value).split("|"):
        if part.startswith(("ETW_", "OPENETW_")):
            if not hasattr(openetw, part):
                raise Failure(f"the binding has no constant {part}")
            total |= getattr(openetw, part)
        else:
            total |= int(part, 0)
    return total


def related_id(record) -> uuid.UUID:
    """The record's RELATED_ACTIVITYID item (the zero GUID without one)."""
    for ext_type, _, _, data in record.extended:
        if ext_type == openetw.ETW_EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID and len(data) == 16:
            return uuid.UUID(bytes_le=bytes(data))
    return uuid.UUID(int=0)


def guid(value: object) -> uuid.UUID:
    return uuid.UUID(str(value).strip("{}"))


def tl_fields(value: object) -> list[tuple[str, str, object]]:
    """fields="a:i32=1,b:str=x" as [(name, type, value)]."""
    out = []
    for part in (str(value).split(",") if str(value) else []):
        m = re.fullmatch(r"([^:=]+):([a-z0-9]+)=(.*)", part)
        if not m or m.group(2) not in TL_TYPES:
            raise Failure(f"bad TraceLogging field {part!r} (name:type=value, types {sorted(TL_TYPES)})")
        name, type_, raw = m.groups()
        try:
            out.append((name, type_, TL_TYPES[type_][1](raw)))
        except ValueError:
            raise Failure(f"field {name}: {raw!r} is no {type_}") from None
    return out


def id_list(value: object) -> list[int]:
    """"3,5" as [3, 5]; "" as []."""
    try:
        return [int(part) for part in str(value).split(",")] if str(value) else []
    except ValueError:
        raise Failure(f"expected comma-separated decimal numbers, got {value!r}") from None


def raw_filter(value: object) -> openetw.RawFilter:
    """filter_raw="TYPE:HEX" as a RawFilter."""
    type_, sep, hex_ = str(value).partition(":")
    try:
        return openetw.RawFilter(int(type_, 0), bytes.fromhex(hex_))
    except ValueError:
        raise Failure(f"filter_raw is TYPE:HEX, got {value!r}") from None


def text(value: object) -> str:
    if not isinstance(value, Str):
        raise Failure(f"expected a quoted string, got {value!r}")
    return value


class Runner:
    def __init__(self) -> None:
        self.fields: dict[str, tuple[int, int]] = {}
        self.record_size = 0
        self.blocks: dict[str, bytes] = {}
        self.case = ""
        self.tmp = tempfile.mkdtemp(prefix="openetw-conformance-")
        self.session = None
        self.provider = None
        self.live = None
        self.reset()

    def reset(self) -> None:
        """Clears the case state; a failed case never leaks into the next."""
        self.props = None
        self.original = None
        self.block = bytearray()
        if self.session is not None:
            try:
                self.session.stop()
            except openetw.Error:
                pass
            self.session.close()
        if self.provider is not None:
            self.provider.close()
        if self.live is not None:
            self.live[0].close()
            self.live[1].join()
        self.session = self.provider = self.live = None
        self.notifications: list = []
        self.records: list = []
        self.stats = None
        self.header = None
        self.counts = {"event_callbacks": 0, "buffer_callbacks": 0}

    def finish(self) -> None:
        self.reset()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def expand(self, value: object) -> object:
        """Replaces {tmp} and {pid} in quoted strings."""
        if isinstance(value, Str):
            return Str(value.replace("{tmp}", self.tmp).replace("{pid}", str(os.getpid())))
        return value

    # ---- helpers ----
    def need_props(self):
        if self.props is None:
            raise Failure("no properties object")
        return self.props

    def call(self, fields: dict, action):
        """Runs action and checks the status and message the step expects."""
        want = fields.pop("status", "ETW_OK")
        want_message = fields.pop("message", None)
        try:
            result = action()
            got, message = "ETW_OK", ""
        except openetw.Error as e:
            result, got, message = None, e.status_name, e.message
        if got != want:
            raise Failure(f"status {got} ({message}), expected {want}")
        if want_message is not None and want_message not in message:
            raise Failure(f"message {message!r} lacks {want_message!r}")
        return result

    def field(self, name: str) -> tuple[int, int]:
        if name not in self.fields:
            raise Failure(f"unknown field {name}")
        return self.fields[name]

    def read(self, at: int, size: int) -> int:
        if at + size > len(self.block):
            raise Failure(f"offset {at} is past the block ({len(self.block)} bytes)")
        return int.from_bytes(self.block[at:at + size], "little")

    def write(self, at: int, size: int, value: int) -> None:
        if at + size > len(self.block):
            raise Failure(f"offset {at} is past the block ({len(self.block)} bytes)")
        self.block[at:at + size] = (value % (1 << (8 * size))).to_bytes(size, "little")

    def field_value(self, name: str, raw: object) -> int:
        """A field value as the unsigned integer stored in the block."""
        at, size = self.field(name)
        if size == 16:
            return int.from_bytes(guid(raw).bytes_le, "little")
        return number(raw) % (1 << (8 * size))

    def offset(self, raw: object) -> int:
        return self.read(*self.field(str(raw))) if str(raw) in self.fields else number(raw)

    def check_record(self) -> None:
        """The block's fixed part equals get_record(), field by field."""
        record = self.props.record()
        for name, (at, size) in self.fields.items():
            value = record
            for part in name.split("."):
                value = getattr(value, part)
            if isinstance(value, uuid.UUID):
                value = int.from_bytes(value.bytes_le, "little")
            if self.read(at, size) != value % (1 << (8 * size)):
                raise Failure(f"block field {name} is {self.read(at, size)}, record says {value}")

    # ---- verbs ----
    def step(self, verb: str, fields: dict, args: list) -> None:
        handler = getattr(self, "do_" + verb, None)
        if handler is None:
            raise Failure(f"unknown verb {verb}")
        if args and verb != "case":
            raise Failure(f"unexpected words {args}")
        for key in fields:
            fields[key] = self.expand(fields[key])
        handler(fields, args)
        if fields:
            raise Failure(f"unknown fields {sorted(fields)}")

    def do_layout(self, fields, args):
        pointer_size, self.record_size = number(fields.pop("pointer_size")), number(fields.pop("record_size"))
        if struct.calcsize("P") != pointer_size:
            raise Failure(f"the scenario describes the {pointer_size * 8}-bit layout")
        if openetw.ETW_EVENT_TRACE_PROPERTIES_SIZE != self.record_size:
            raise Failure("EVENT_TRACE_PROPERTIES size differs")

    def do_field(self, fields, args):
        name = str(fields.pop("name"))
        self.fields[name] = (number(fields.pop("at")), number(fields.pop("size")))
        # The binding's record must have the member (the values are checked on export).
        value = openetw.Properties("layout probe").record()
        for part in name.split("."):
            if not hasattr(value, part):
                raise Failure(f"the record has no member {name}")
            value = getattr(value, part)

    def do_case(self, fields, args):
        self.reset()

    def do_create(self, fields, args):
        name = fields.pop("name")
        created = self.call(fields, lambda: openetw.Properties(name))
        if created is not None:
            self.props = created

    def do_set(self, fields, args):
        props = self.need_props()
        control = {k: fields.pop(k) for k in ("status", "message") if k in fields}
        for member, raw in list(fields.items()):
            del fields[member]
            if member in STRING_MEMBERS:
                value = str(raw)
            elif member == "guid":
                value = guid(raw)
            elif member in U32_MEMBERS or member == "flush_threshold":
                value = number(raw)
            else:
                raise Failure(f"unknown member {member}")
            self.call(dict(control), lambda: setattr(props, member, value))

    def do_get(self, fields, args):
        props = self.need_props()
        for member, raw in list(fields.items()):
            del fields[member]
            if member in STRING_MEMBERS:
                got, want = getattr(props, member) or "", str(raw)
            elif member == "guid":
                got, want = props.guid, guid(raw)
            elif member in U32_MEMBERS or member in OUTPUT_MEMBERS or member == "flush_threshold":
                got, want = int(getattr(props, member)), number(raw)
            else:
                raise Failure(f"unknown member {member}")
            if got != want:
                raise Failure(f"{member} is {got!r}, expected {want!r}")

    def do_clone(self, fields, args):
        self.original, self.props = self.need_props(), self.need_props().copy()

    def do_original(self, fields, args):
        if self.original is None:
            raise Failure("no original")
        self.props = self.original

    def do_validate(self, fields, args):
        props = self.need_props()
        self.call(fields, props.validate)

    def do_export(self, fields, args):
        props = self.need_props()
        size = number(fields.pop("size"))
        if props.block_size != size:
            raise Failure(f"block size is {props.block_size}, expected {size}")
        try:
            props.export_into(bytearray(size - 1))
            raise Failure("a buffer one byte short was accepted")
        except openetw.MoreDataError:
            pass
        self.block = bytearray(self.call(fields, props.to_bytes))
        self.blocks[self.case] = bytes(self.block)
        self.check_record()

    def do_import(self, fields, args):
        imported = self.call(fields, lambda: openetw.Properties.from_bytes(bytes(self.block)))
        if imported is not None:
            self.props = imported

    def do_roundtrip(self, fields, args):
        again = openetw.Properties.from_bytes(bytes(self.block)).to_bytes()
        if again != bytes(self.block):
            raise Failure("the block changed in an import/export round trip")

    def do_expect(self, fields, args):
        name = str(fields.pop("field"))
        got, want = self.read(*self.field(name)), self.field_value(name, fields.pop("value"))
        if got != want:
            raise Failure(f"field {name} is {got:#x}, expected {want:#x}")

    def do_expect_text(self, fields, args):
        at, want = self.offset(fields.pop("at")), str(fields.pop("text"))
        end = at
        while self.read(end, 2) != 0:
            end += 2
        got = self.block[at:end].decode("utf-16-le")
        if got != want:
            raise Failure(f"text at {at} is {got!r}, expected {want!r}")

    def do_block(self, fields, args):
        self.block = bytearray(number(fields.pop("size")))

    def do_load(self, fields, args):
        name = str(fields.pop("block"))
        if name not in self.blocks:
            raise Failure(f"case {name} exported no block")
        self.block = bytearray(self.blocks[name])

    def do_resize(self, fields, args):
        size = number(fields.pop("size"))
        self.block = self.block[:size] + bytearray(max(0, size - len(self.block)))

    def do_poke(self, fields, args):
        name = str(fields.pop("field"))
        at, size = self.field(name)
        self.write(at, size, self.field_value(name, fields.pop("value")))

    def do_poke_u16(self, fields, args):
        self.write(number(fields.pop("at")), 2, number(fields.pop("value")))

    def do_poke_text(self, fields, args):
        at, data = number(fields.pop("at")), str(fields.pop("text")).encode("utf-16-le") + b"\0\0"
        if at + len(data) > len(self.block):
            raise Failure("text past the block")
        self.block[at:at + len(data)] = data


    # ---- sessions, providers, events and records ----
    def need_session(self):
        if self.session is None:
            raise Failure("no session")
        return self.session

    def need_provider(self):
        if self.provider is None:
            raise Failure("no provider")
        return self.provider

    def do_start(self, fields, args):
        props = self.need_props()
        raw = fields.pop("flags", None)
        flags, options = (0 if raw is None else number(raw)), {}
        for name, option in START_OPTIONS:
            bit = getattr(openetw, name)
            if flags & bit:
                options[option], flags = True, flags & ~bit
        if flags:
            raise Failure(f"flags={raw} has bits that are no start option")
        started = self.call(fields, lambda: openetw.Session(props, **options))
        if started is not None:
            self.session = started

    def do_open(self, fields, args):
        name = text(fields.pop("name"))
        if self.session is not None:
            self.session.close()
            self.session = None
        self.session = self.call(fields, lambda: openetw.Session.open(name))

    def do_query(self, fields, args):
        self.call(fields, lambda: self.need_session().query(self.need_props()))

    def do_flush(self, fields, args):
        self.call(fields, lambda: self.need_session().flush(self.need_props()))

    def do_stop(self, fields, args):
        self.call(fields, lambda: self.need_session().stop(self.need_props()))

    def do_grant(self, fields, args):
        uid, rights = number(fields.pop("uid")), number(fields.pop("rights"))
        self.call(fields, lambda: self.need_session().grant(uid, rights))

    def do_flush_to_file(self, fields, args):
        path = text(fields.pop("path"))
        self.call(fields, lambda: self.need_session().flush_to_file(path, self.need_props()))

    def do_register(self, fields, args):
        provider_guid = guid(fields.pop("guid"))
        if self.provider is not None:
            self.provider.close()
            self.provider = None
        self.provider = self.call(fields, lambda: openetw.Provider(provider_guid, self.notifications.append))

    def do_enable(self, fields, args):
        provider_guid = guid(fields.pop("guid"))
        level, any_, all_ = (number(fields.pop(k, "0")) for k in ("level", "any", "all"))
        self.call(fields, lambda: self.need_session().enable_provider(provider_guid, level, any_, all_))

    def do_enable_ex(self, fields, args):
        provider_guid = guid(fields.pop("guid"))
        level, any_, all_, properties = (number(fields.pop(k, "0")) for k in ("level", "any", "all", "properties"))
        include = number(fields.pop("filter_include", "1")) != 0
        filters = []  # in the order the scenario format gives
        if "filter_event_ids" in fields:
            filters.append(openetw.EventIdFilter(id_list(fields.pop("filter_event_ids")), include=include))
        if "filter_pid" in fields:
            raw = fields.pop("filter_pid")
            pids = [os.getpid()] if not isinstance(raw, Str) and raw == "self" else id_list(raw)
            filters.append(openetw.PidFilter(pids))
        if "filter_exe" in fields:
            filters.append(openetw.ExecutableNameFilter(text(fields.pop("filter_exe"))))
        if "filter_event_names" in fields:
            names = text(fields.pop("filter_event_names"))
            filters.append(openetw.EventNameFilter(names.split(",") if names else [], include=include))
        if "filter_stackwalk_ids" in fields:
            filters.append(openetw.StackwalkFilter(id_list(fields.pop("filter_stackwalk_ids"))))
        if "filter_raw" in fields:
            filters.append(raw_filter(fields.pop("filter_raw")))
        self.call(fields, lambda: self.need_session().enable_provider(
            provider_guid, level, any_, all_, properties=properties, filters=filters))

    def do_write_tl(self, fields, args):
        provider = self.need_provider()
        count = number(fields.pop("count", "1"))
        name = text(fields.pop("name"))
        options = {k: number(fields.pop(k, "0")) for k in ("level", "keyword", "opcode")}
        # Each type through its natural Python value, wrapped where a plain one
        # would be written as another in-type (int is INT64).
        values = [(n, openetw.Typed(v, TL_TYPES[t][0]) if t in ("i32", "u32", "u64") else
                   bool(v) if t == "bool" else v)
                  for n, t, v in tl_fields(fields.pop("fields", Str("")))]
        for _ in range(count):
            self.call(dict(fields), lambda: provider.write(name, fields=values, **options))
        fields.pop("status", None)
        fields.pop("message", None)

    def do_expect_tl(self, fields, args):
        count, name = number(fields.pop("count")), text(fields.pop("name"))
        want = tl_fields(fields.pop("fields")) if "fields" in fields else None

        def matches(record) -> bool:
            decoded = record.decoded
            if decoded is None or decoded.source_name != "tracelogging" or decoded.event_name != name:
                return False
            if want is None:
                return True
            top = [p for p in decoded.properties if p.parent == -1]
            if len(top) != len(want):
                return False
            for p, (field, type_, value) in zip(top, want):
                got = record.fields.get(field) if p.name == field else None
                if p.name != field or p.in_type != TL_TYPES[type_][0]:
                    return False
                if (int(bool(got)) if type_ == "bool" else got) != value:
                    return False
            return True
        got = sum(matches(r) for r in self.records)
        if got != count:
            raise Failure(f"{got} TraceLogging records {name!r} match, expected {count} (of {len(self.records)})")

    def do_expect_items(self, fields, args):
        count = number(fields.pop("count"))
        checks = []
        if "event_id" in fields:
            event_id = number(fields.pop("event_id"))
            checks.append(lambda r: r.event_id == event_id)
        if "stack" in fields:
            stack = number(fields.pop("stack"))
            checks.append(lambda r: bool(r.stack) == bool(stack))
        if "sid" in fields:
            raw = fields.pop("sid")
            sid = f"S-1-22-1-{os.geteuid()}" if str(raw) == "self" else None
            if sid is None and number(raw) != 0:
                raise Failure(f"sid is self or 0, got {raw!r}")
            checks.append(lambda r: r.sid == sid)
        for key in ("ts_id", "process_start_key", "event_key"):
            if key in fields:
                present = number(fields.pop(key)) != 0

                def check(r, key=key, present=present):
                    value = getattr(r, key)
                    # ts_id: any item; the keys: an item holding a nonzero value.
                    return (value is not None and (key == "ts_id" or value != 0)) == present
                checks.append(check)
        got = sum(all(c(r) for c in checks) for r in self.records)
        if got != count:
            raise Failure(f"{got} records match, expected {count} (of {len(self.records)})")

    def do_disable(self, fields, args):
        provider_guid = guid(fields.pop("guid"))
        self.call(fields, lambda: self.need_session().disable_provider(provider_guid))

    def do_expect_callback(self, fields, args):
        count = number(fields.pop("count"))
        if len(self.notifications) != count:
            raise Failure(f"{len(self.notifications)} enable callbacks, expected {count}")
        for key, member in (("is_enabled", "is_enabled"), ("level", "level"),
                            ("any", "match_any_keyword"), ("all", "match_all_keyword")):
            if key in fields:
                if not self.notifications:
                    raise Failure("no enable callback")
                got, want = int(getattr(self.notifications[-1], member)), number(fields.pop(key))
                if got != want:
                    raise Failure(f"the last callback's {key} is {got:#x}, expected {want:#x}")

    def do_is_enabled(self, fields, args):
        level, flags, want = (number(fields.pop(k)) for k in ("level", "flags", "value"))
        got = int(self.need_provider().is_enabled(level, flags))
        if got != want:
            raise Failure(f"is_enabled({level}, {flags:#x}) is {got}, expected {want}")

    def do_write(self, fields, args):
        provider = self.need_provider()
        count = number(fields.pop("count", "1"))
        class_guid = guid(fields.pop("guid")) if "guid" in fields else None
        type_, level, version = (number(fields.pop(k, "0")) for k in ("type", "level", "version"))
        payload = text(fields.pop("payload", Str(""))).encode("utf-8")
        for _ in range(count):
            self.call(dict(fields), lambda: provider.write(payload, type=type_, level=level,
                                                            version=version, guid=class_guid))
        fields.pop("status", None)
        fields.pop("message", None)

    def do_write_event(self, fields, args):
        provider = self.need_provider()
        count = number(fields.pop("count", "1"))
        members = {k: number(fields.pop(k, "0")) for k in
                   ("id", "version", "channel", "level", "opcode", "task", "keyword")}
        activity = guid(fields.pop("activity")) if "activity" in fields else None
        related = guid(fields.pop("related")) if "related" in fields else None
        payload = text(fields.pop("payload", Str(""))).encode("utf-8")
        for _ in range(count):
            self.call(dict(fields), lambda: provider.write_event(
                payload, activity_id=activity, related_activity_id=related, **members))
        fields.pop("status", None)
        fields.pop("message", None)

    def do_unregister(self, fields, args):
        self.need_provider().close()
        self.provider = None

    def do_write_file(self, fields, args):
        path, data = text(fields.pop("path")), text(fields.pop("text")).encode("utf-8")
        with open(path, "wb") as out:
            out.write(data)

    def consumer_callbacks(self, records: list, stop_after: int) -> dict:
        def on_record(record):
            records.append(record)
            return stop_after and len(records) == stop_after

        def on_event(event):
            self.counts["event_callbacks"] += 1

        def on_buffer(buffer):
            self.counts["buffer_callbacks"] += 1
        return {"on_record": on_record, "on_event": on_event, "on_buffer": on_buffer}

    def keep_facts(self, consumer) -> None:
        self.stats = consumer.stats()
        self.header = consumer.logfile_header(0)

    def do_process(self, fields, args):
        path = text(fields.pop("file"))
        order = str(fields.pop("order", "time"))
        stop_after = number(fields.pop("stop_after", "0"))
        self.records, self.counts = [], {"event_callbacks": 0, "buffer_callbacks": 0}
        callbacks = self.consumer_callbacks(self.records, stop_after)

        def run():  # the status applies to the open, else to the process
            with openetw.Consumer(path, order=order, **callbacks) as consumer:
                try:
                    consumer.process()
                finally:
                    self.keep_facts(consumer)
        self.call(fields, run)

    def do_live_start(self, fields, args):
        name = text(fields.pop("name"))
        self.records, self.counts = [], {"event_callbacks": 0, "buffer_callbacks": 0}
        consumer = self.call(fields, lambda: openetw.Consumer.realtime(
            name, **self.consumer_callbacks(self.records, 0)))
        if consumer is None:
            return
        outcome: dict = {}

        def run():
            try:
                consumer.process()
                outcome["status"] = "ETW_OK"
            except openetw.Error as e:
                outcome["status"], outcome["message"] = e.status_name, e.message
            except BaseException as e:  # noqa: BLE001  (reported by live_join)
                outcome["status"], outcome["message"] = "exception", repr(e)
        thread = threading.Thread(target=run)
        thread.start()
        self.live = (consumer, thread, outcome)

    def do_live_join(self, fields, args):
        if self.live is None:
            raise Failure("no live consumer")
        consumer, thread, outcome = self.live
        thread.join()
        self.live = None
        want = fields.pop("status", "ETW_OK")
        want_message = fields.pop("message", None)
        try:
            if outcome["status"] != want:
                raise Failure(f"live process: status {outcome['status']} ({outcome.get('message')}), "
                              f"expected {want}")
            if want_message is not None and want_message not in outcome.get("message", ""):
                raise Failure(f"message {outcome.get('message')!r} lacks {want_message!r}")
            self.keep_facts(consumer)
        finally:
            consumer.close()

    def do_expect_records(self, fields, args):
        count = number(fields.pop("count"))
        checks = []
        for key in ("kind", "opcode", "level", "version", "event_id", "task", "channel", "keyword"):
            if key in fields:
                checks.append((key, number(fields.pop(key))))
        for key, member in (("guid", "guid"), ("activity", "activity_id"), ("related", "related")):
            if key in fields:
                checks.append((member, guid(fields.pop(key))))
        if "payload" in fields:
            checks.append(("payload", text(fields.pop("payload")).encode("utf-8")))
        if "process_id" in fields:
            raw = fields.pop("process_id")
            checks.append(("process_id", os.getpid() if str(raw) == "self" else number(raw)))
        got = sum(all(related_id(r) == want if key == "related" else getattr(r, key) == want
                      for key, want in checks) for r in self.records)
        if got != count:
            raise Failure(f"{got} records match, expected {count} (of {len(self.records)})")

    def do_expect_ordered(self, fields, args):
        stamps = [r.timestamp for r in self.records]
        for i in range(1, len(stamps)):
            if stamps[i] < stamps[i - 1]:
                raise Failure(f"record {i} goes back in time")

    def do_expect_stats(self, fields, args):
        if self.stats is None:
            raise Failure("no consumer statistics")
        for key in list(fields):
            want = number(fields.pop(key))
            if key in self.counts:
                got = self.counts[key]
            elif key in ("records", "buffers", "corrupt_records", "corrupt_buffers", "events_lost"):
                got = getattr(self.stats, key)
            else:
                raise Failure(f"unknown statistic {key}")
            if got != want:
                raise Failure(f"{key} is {got}, expected {want}")

    def do_expect_header(self, fields, args):
        if self.header is None:
            raise Failure("no logfile header")
        members = {"events_lost": "EventsLost", "buffers_written": "BuffersWritten",
                   "buffer_size": "BufferSize", "log_file_mode": "LogFileMode",
                   "pointer_size": "PointerSize"}
        for key in list(fields):
            raw = fields.pop(key)
            if key in ("logger_name", "log_file_name"):
                got, want = getattr(self.header, key), text(raw)
            elif key in members:
                got, want = getattr(self.header.header, members[key]), number(raw)
            else:
                raise Failure(f"unknown header member {key}")
            if got != want:
                raise Failure(f"header {key} is {got!r}, expected {want!r}")


def main(path: str) -> int:
    runner, cases, failed = Runner(), 0, 0
    case_failed = False

    def finish():
        nonlocal cases, failed
        if runner.case:
            cases += 1
            failed += case_failed
            if not case_failed:
                print(f"ok {runner.case}")

    with open(path, encoding="utf-8") as scenario:
        for number_, line in enumerate(scenario, 1):
            try:
                tokens = tokenize(line)
                if not tokens:
                    continue
                verb, args = str(tokens[0][1]), [v for k, v in tokens[1:] if not k]
                fields = {k: v for k, v in tokens[1:] if k}
                if verb == "case":
                    finish()
                    runner.case, case_failed = str(args[0]), False
                elif case_failed:
                    continue
                runner.step(verb, fields, args)
            except Failure as e:
                print(f"FAIL {runner.case or '(setup)'} line {number_}: {e}")
                if not runner.case:
                    runner.finish()
                    return 1
                case_failed = True
    finish()
    runner.finish()
    print(f"{cases - failed} cases passed" + (f", {failed} FAILED" if failed else ""))
    return 1 if failed or cases == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "scenario.txt"))
