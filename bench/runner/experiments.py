"""What a run measures: the experiments (one workload, its figures, the
arguments each implementation gets) of a smoke, quick or full run, and of
the 1 GB consumer file. They live apart from the code that runs them so
that adding or changing a figure touches this list alone."""

from . import programs
from .programs import IMPLS

class NA:
    """A figure that is not measured for an implementation, and why."""

    def __init__(self, reason):
        self.reason = reason


class Metric:
    def __init__(self, key, label, unit, better="lower", show=True, scale=1.0):
        self.key, self.label, self.unit, self.better, self.show, self.scale = key, label, unit, better, show, scale


class Experiment:
    """One workload run for each implementation, `reps` fresh processes each,
    interleaved; every metric is a figure of the report."""

    def __init__(self, eid, group, label, args, metrics, impl_args=None, na=None, callgrind=False, env=None,
                 timeout=300, reps=None):
        self.id, self.group, self.label = eid, group, label
        self.args = args                      # common arguments
        self.impl_args = impl_args or {}      # per implementation extra arguments
        self.na = na or {}                    # impl -> NA
        self.metrics = metrics
        self.callgrind = callgrind
        self.env = env or {}
        self.timeout = timeout
        self.reps = reps                      # None: the run's --reps
        self.samples = {i: [] for i in IMPLS}  # impl -> list of result dicts
        self.status = {i: None for i in IMPLS}  # impl -> NA / error text


def write_metrics(headline):
    return [
        Metric("ns_cpu", "ns/event, mean (writer CPU time)", "ns"),
        Metric("ns_p50", "ns/event, p50 of batches", "ns", show=headline),
        Metric("ns_p99", "ns/event, p99 of batches", "ns", show=headline),
        Metric("ns_p999", "ns/event, p99.9 of batches", "ns", show=headline),
        Metric("lost_fraction", "events lost during the run", "%", show=headline, scale=100.0),
        Metric("ns_wall", "ns/event, mean (wall clock)", "ns", show=False),
        Metric("ns_p999_all", "ns/event, p99.9 of all batches (preempted included)", "ns", show=False),
    ]


def plan(mode, work, large=False):
    """The experiments of a quick, full or smoke run (large: also the 1 GB consumer file)."""
    full, smoke = mode == "full", mode == "smoke"
    ev = {"full": 500000, "quick": 300000, "smoke": 20000}[mode]
    warm = {"full": 100000, "quick": 50000, "smoke": 5000}[mode]
    common = {"events": ev, "warmup": warm, "batch": 100, "dir": work, "buffer-kb": 64}
    lttng_one_clock = NA("LTTng-UST has one clock (CLOCK_MONOTONIC): compared with clock 1")
    exps = []

    # Write cost: file sessions (LTTng: disk session), payload x threads x clock.
    payloads = (0, 64, 512) if (full or smoke) else (64,)
    for payload in payloads:
        for threads in (1, 2):
            for clock in (1, 2, 3):
                if not full and not smoke and clock != 1 and threads != 1:
                    continue
                if smoke and (clock != 1 or threads != 1) and not (payload == 64 and threads == 1):
                    continue
                headline = payload == 64 and clock == 1
                a = dict(common, kind="write", payload=payload, threads=threads, clock=clock, **{"buffers-per-cpu": 256})
                exps.append(Experiment(
                    "write.file.p%d.t%d.c%d" % (payload, threads, clock), "Write cost",
                    "file session, %d B payload, %d thread%s, clock %d" % (payload, threads, "s" * (threads > 1), clock),
                    a, write_metrics(headline),
                    impl_args={"ours": {"mode": "file"}, "floor": {"mode": "ring"}, "lttng": {"mode": "disk"}},
                    na={"lttng": lttng_one_clock} if clock != 1 else {}))
    if not smoke:
        # Quick mode still shows the 0 and 512 B payloads for one thread.
        if not full:
            for payload in (0, 512):
                a = dict(common, kind="write", payload=payload, threads=1, clock=1, **{"buffers-per-cpu": 256})
                exps.append(Experiment(
                    "write.file.p%d.t1.c1" % payload, "Write cost", "file session, %d B payload, 1 thread, clock 1" % payload,
                    a, write_metrics(False),
                    impl_args={"ours": {"mode": "file"}, "floor": {"mode": "ring"}, "lttng": {"mode": "disk"}}))
    # Other session modes, 64 B, clock 1.
    for threads in (1, 2) if not smoke else (1,):
        for m, peer, what in (("buffering", "snapshot", "buffering (in-memory) session; LTTng snapshot session"),
                              ("realtime", None, "real-time session, consumer discarding")):
            a = dict(common, kind="write", payload=64, threads=threads, clock=1, **{"buffers-per-cpu": 256})
            exps.append(Experiment(
                "write.%s.p64.t%d.c1" % (m, threads), "Write cost",
                "%s, 64 B, %d thread%s, clock 1" % (what, threads, "s" * (threads > 1)), a, write_metrics(True),
                impl_args={"ours": {"mode": m}, "floor": {"mode": "ring"}, "lttng": {"mode": peer or "none"}},
                na={} if peer else {"lttng": NA("no LTTng live peer run")}))
    # Writers in another process: the session of write.file.p64.tN.c1 hosted
    # by this process (write.local) or by a child process it spawns, the
    # provider writing into that child's shared buffers (write.remote). Both
    # use a registry file of their own; run interleaved (local, remote, ...);
    # a run that lost or dropped any event is left out (scheduling.run_all).
    # The pool (512 buffers/CPU) holds the whole run: a writer that outruns
    # the file loses nothing, so the pair compares the write paths alone.
    for threads in (1, 2):
        for host, what in (("local", "session hosted by the writing process"),
                           ("remote", "session hosted by another process (writes into its shared buffers)")):
            a = dict(common, kind="write", payload=64, threads=threads, clock=1, **{"buffers-per-cpu": 512})
            e = Experiment(
                "write.%s.p64.t%d.c1" % (host, threads), "Writers in another process",
                "file session, 64 B, %d thread%s, clock 1, 64 KiB x 512 buffers/CPU; %s" % (
                    threads, "s" * (threads > 1), what), a, write_metrics(True)[:5],
                impl_args={"ours": {"mode": "file", "host": host, "registry": "fresh"}},
                na={"floor": NA("no floor for a session of another process (see write.file.*)"),
                    "lttng": NA("LTTng-UST always writes into buffers its daemons share (see write.file.*)")})
            e.interleave = "write.remote"
            e.partner = "write.remote.t%d" % threads  # --only picks both of a pair
            e.exclude_lost = True
            exps.append(e)
    # The same two with callgrind: the instructions the remote path adds
    # (exact, unlike the times on a shared machine). Not in smoke mode.
    if not smoke:
        for host in ("local", "remote"):
            a = {"kind": "cgloop", "events": 100000 if full else 30000, "warmup": 5000, "payload": 64, "clock": 1,
                 "dir": work, "buffer-kb": 64, "buffers-per-cpu": 256}
            e = Experiment(
                "write.%s.instr.p64.c1" % host, "Writers in another process",
                "write path, 64 B, clock 1, 1 thread; session hosted by %s (callgrind)" % (
                    "the writing process" if host == "local" else "another process"), a,
                [Metric("instr_per_event", "instructions per event", "instr")],
                impl_args={"ours": {"mode": "file", "host": host, "registry": "fresh"}},
                na={"floor": NA("no floor for a session of another process (see write.file.*)"),
                    "lttng": NA("LTTng-UST always writes into buffers its daemons share (see write.file.*)")},
                callgrind=True, timeout=600, reps=1)
            e.interleave = e.partner = "write.remote.instr"
            exps.append(e)

    # EVENT_HEADER events (etw_provider_write_event: a descriptor and one
    # data descriptor) against classic ones, the same 64 B payload, the
    # session of write.file.p64.t1.c1; interleaved (classic, event, ...).
    # The record is 32 bytes longer (0x50 header against 0x30).
    for record, what in (("classic", "classic event (etw_provider_trace_event, 0x30 header)"),
                         ("event", "EVENT_HEADER event (etw_provider_write_event, 0x50 header)")):
        a = dict(common, kind="write", payload=64, threads=1, clock=1, **{"buffers-per-cpu": 256})
        e = Experiment(
            "write.record.%s.p64.t1.c1" % record, "EVENT_HEADER events",
            "file session, 64 B, 1 thread, clock 1; %s" % what, a, write_metrics(True)[:5],
            impl_args={"ours": {"mode": "file", "record": record}},
            na={"floor": NA("the floor writes the classic record (see write.file.*)"),
                "lttng": NA("no EVENT_HEADER in LTTng-UST (see write.file.*)")})
        e.interleave = e.partner = "write.record"
        exps.append(e)
        if not smoke:
            a = {"kind": "cgloop", "events": 100000 if full else 30000, "warmup": 5000, "payload": 64, "clock": 1,
                 "dir": work, "buffer-kb": 64, "buffers-per-cpu": 256}
            e = Experiment(
                "write.record.instr.%s.p64.c1" % record, "EVENT_HEADER events",
                "write path, 64 B, clock 1, 1 thread; %s (callgrind)" % what, a,
                [Metric("instr_per_event", "instructions per event", "instr")],
                impl_args={"ours": {"mode": "file", "record": record}},
                na={"floor": NA("the floor writes the classic record (see write.file.*)"),
                    "lttng": NA("no EVENT_HEADER in LTTng-UST (see write.file.*)")},
                callgrind=True, timeout=600, reps=1)
            e.interleave = e.partner = "write.record.instr"
            exps.append(e)

    # TraceLogging against EventWrite: one event of three fields (INT32, INT64,
    # a 9-byte UTF-8 string), the session of write.file.p64.t1.c1; interleaved.
    # The TraceLogging record carries its metadata (an EVENT_SCHEMA_TL item)
    # and the write encodes it per call.
    for record, what in (("event3", "EventWrite, three data descriptors"),
                         ("tl3", "TraceLogging (etw_provider_write_tracelogging), three fields")):
        a = dict(common, kind="write", payload=64, threads=1, clock=1, **{"buffers-per-cpu": 256})
        e = Experiment(
            "write.tl.%s.t1.c1" % record, "TraceLogging events",
            "file session, 1 thread, clock 1; %s" % what, a, write_metrics(True)[:5],
            impl_args={"ours": {"mode": "file", "record": record}},
            na={"floor": NA("the floor writes the classic record (see write.file.*)"),
                "lttng": NA("no TraceLogging in LTTng-UST (see write.file.*)")})
        e.interleave = e.partner = "write.tl"
        exps.append(e)

    a = dict(common, kind="write", payload=64, threads=1, clock=1, batch=1000,
             events=ev * 10, warmup=warm * 10, **{"buffers-per-cpu": 16})
    # A disabled provider writes nothing: its own group (goal: under 2 ns),
    # not a write workload compared with LTTng's writes.
    exps.append(Experiment(
        "write.disabled", "Disabled provider",
        "registered, disabled provider (floor: load + branch; LTTng: tracepoint with no session)", a,
        [Metric("ns_cpu", "ns/event, mean (writer CPU time)", "ns"),
         Metric("ns_p50", "ns/event, p50 of batches of 1000", "ns", show=False)],
        impl_args={"ours": {"mode": "disabled"}, "floor": {"mode": "disabled"}, "lttng": {"mode": "disabled"}}))
    exps.append(Experiment(
        "write.disabled.inline", "Disabled provider",
        "registered, disabled provider, checked inline first (ours: etw_provider_enabled_word; LTTng's "
        "tracepoint macro checks inline itself)", a,
        [Metric("ns_cpu", "ns/event, mean (writer CPU time)", "ns"),
         Metric("ns_p50", "ns/event, p50 of batches of 1000", "ns", show=False)],
        impl_args={"ours": {"mode": "disabled", "check": "inline"}, "floor": {"mode": "disabled"},
                   "lttng": {"mode": "disabled"}}))

    # Filters at the source (docs/FILTERS.md): an EVENT_HEADER event an
    # EVENT_ID filter turns away, against the same event enabled (the
    # filter admitting it, and no filter) and a disabled provider; one
    # group, interleaved.
    for case, what, extra in (
            ("out", "enabled, an EVENT_ID filter turning the event away", {"mode": "file", "filter": "event-id-out"}),
            ("pass", "enabled, an EVENT_ID filter admitting the event", {"mode": "file", "filter": "event-id-in"}),
            ("none", "enabled, no filter", {"mode": "file"}),
            ("disabled", "disabled provider (etw_provider_write_event called)", {"mode": "disabled"})):
        a = dict(common, kind="write", payload=64, threads=1, clock=1, batch=1000,
                 events=ev * 10, warmup=warm * 10, **{"buffers-per-cpu": 256})
        e = Experiment(
            "write.filter.%s" % case, "Filters at the source",
            "EVENT_HEADER event, 64 B, 1 thread; %s" % what, a,
            [Metric("ns_cpu", "ns/event, mean (writer CPU time)", "ns"),
             Metric("ns_p50", "ns/event, p50 of batches of 1000", "ns", show=False)],
            impl_args={"ours": dict(extra, record="event")},
            na={"floor": NA("the floor has no filters"), "lttng": NA("LTTng-UST filters in the session daemon's "
                                                                    "bytecode: not this workload")})
        e.interleave = e.partner = "write.filter"
        exps.append(e)

    # Sustained throughput to a file, flat out.
    tev = {"full": 10000000, "quick": 1000000, "smoke": 50000}[mode]
    # LTTng's consumer daemon syncs every sub-buffer to the device, so its
    # lossless rate is the device's (about 0.1 M events/s here): 10 M events
    # would take minutes per run, so it writes 1 M per thread (a steady state
    # of several seconds).
    lttng_tev = min(tev, 1000000)
    for threads in (1, 2) if not smoke else (1,):
        a = {"kind": "throughput", "events": tev, "threads": threads, "payload": 64, "clock": 1, "dir": work,
             "buffer-kb": 64, "buffers-per-cpu": 16, "lossless": 1, "blocking": 1}
        exps.append(Experiment(
            "throughput.t%d" % threads, "Throughput to a file",
            "%s events/thread, 64 B, %d thread%s, 64 KiB x 16 buffers/CPU, lossless (LTTng: blocking channel, %s events/thread)" % (
                "%d M" % (tev // 1000000) if tev >= 1000000 else str(tev), threads, "s" * (threads > 1),
                "%d M" % (lttng_tev // 1000000) if lttng_tev >= 1000000 else str(lttng_tev)), a,
            [Metric("events_per_s", "events/s, first event to stop returned", "M/s", "higher", scale=1e-6),
             Metric("bytes_per_s", "bytes/s to disk", "MB/s", "higher", scale=1e-6),
             Metric("logger_cpu_ns_per_event", "logger CPU per event (LTTng: consumerd)", "ns"),
             Metric("bytes_per_event", "bytes per event on disk", "B"),
             Metric("lost_fraction", "events lost", "%", scale=100.0),
             Metric("writer_cpu_ns_per_event", "writer CPU per event", "ns", show=False),
             Metric("events_per_s_while_writing", "events/s while writing", "M/s", "higher", show=False, scale=1e-6)],
            impl_args={"lttng": {"events": lttng_tev}},
            env={"LTTNG_UST_ALLOW_BLOCKING": "1"}, timeout=900, reps=3))

    # A session exporting to NATS JetStream (a nats-server bench/run starts
    # on this machine) beside the same session writing only its file: the
    # throughput workload, lossless, in this process (the host's CPU is the
    # process's minus the writers'); after the run the stream is read back
    # through the consumer and its events counted (not timed). One stream
    # per run; the server's storage is in the work folder.
    xev = {"full": 2000000, "quick": 1000000, "smoke": 50000}[mode]
    for threads in (1, 2) if full else (1,):
        for sink, what in (("file", "file only"), ("nats", "file and export to a local nats-server")):
            a = {"kind": "throughput", "events": xev, "threads": threads, "payload": 64, "clock": 1, "dir": work,
                 "buffer-kb": 64, "buffers-per-cpu": 16, "lossless": 1, "registry": "fresh"}
            metrics = [Metric("events_per_s", "events/s, first event to stop returned", "M/s", "higher", scale=1e-6),
                       Metric("bytes_per_s", "bytes/s (file; the stream gets the same buffers)", "MB/s", "higher",
                              scale=1e-6),
                       Metric("host_cpu_us_per_buffer", "host CPU per 64 KiB buffer (logger, export)", "us"),
                       Metric("lost_fraction", "events lost (EventsLost)", "%", scale=100.0)]
            if sink == "nats":
                metrics += [Metric("server_cpu_us_per_buffer",
                                   "nats-server CPU per 64 KiB buffer (first event to stop returned)", "us"),
                            Metric("export_buffers_lost", "buffers dropped from the export (RealTimeBuffersLost)",
                                   "buffers"),
                            Metric("stream_missing_fraction", "events missing from the stream, read back", "%",
                                   scale=100.0)]
            e = Experiment(
                "export.%s.t%d" % (sink, threads), "Export to NATS JetStream",
                "%s events/thread, 64 B, %d thread%s, 64 KiB x 16 buffers/CPU, lossless; %s" % (
                    "%d M" % (xev // 1000000) if xev >= 1000000 else str(xev), threads, "s" * (threads > 1), what),
                a, metrics, impl_args={"ours": {}},
                na={"floor": NA("no floor for an export"), "lttng": NA("LTTng has no JetStream export")},
                timeout=600)
            e.interleave = "export"
            e.partner = "export.t%d" % threads  # --only picks both of a pair
            e.needs_nats = sink == "nats"
            exps.append(e)

    # The same pair at offered rates (paced: a service's steady event rate),
    # lossless as above: a session that cannot keep up shows it in the rate
    # achieved, and nothing may be lost. Flat out (above) the local nats-server's own storage rate
    # bounds the export; these rows show the rates it sustains.
    psecs = {"full": 2.0, "quick": 1.0, "smoke": 0.2}[mode]
    for rate in ((1e6, 2e6, 4e6) if full else (1e6, 2e6) if not smoke else (1e6,)):
        for sink, what in (("file", "file only"), ("nats", "file and export to a local nats-server")):
            a = {"kind": "paced", "rate": int(rate), "seconds": psecs, "threads": 1, "payload": 64, "clock": 1,
                 "dir": work, "buffer-kb": 64, "buffers-per-cpu": 16, "lossless": 1, "registry": "fresh"}
            metrics = [Metric("offered_per_s", "offered rate achieved", "M/s", "higher", scale=1e-6),
                       Metric("lost_fraction", "events lost (EventsLost and refused writes)", "%", scale=100.0),
                       Metric("host_cpu_us_per_buffer", "host CPU per 64 KiB buffer (logger, export)", "us")]
            if sink == "nats":
                metrics += [Metric("server_cpu_us_per_buffer", "nats-server CPU per 64 KiB buffer", "us"),
                            Metric("export_buffers_lost", "buffers dropped from the export", "buffers"),
                            Metric("stream_missing_fraction", "events missing from the stream, read back", "%",
                                   scale=100.0)]
            e = Experiment(
                "export.paced.%s.%dM" % (sink, rate / 1e6), "Export to NATS JetStream at an offered rate",
                "%d M events/s offered for %g s, 64 B, 1 thread, 64 KiB x 16 buffers/CPU, lossless; %s" % (
                    rate / 1e6, psecs, what),
                a, metrics, impl_args={"ours": {}},
                na={"floor": NA("no floor for an export"), "lttng": NA("LTTng has no JetStream export")},
                timeout=600)
            e.interleave = "export"
            e.partner = "export.paced.%dM" % (rate / 1e6)
            e.needs_nats = sink == "nats"
            exps.append(e)

    # Events lost at paced offered loads, matched buffer bytes.
    secs = {"full": 2.0, "quick": 0.5, "smoke": 0.2}[mode]
    for rate in ((1e6, 2e6, 5e6, 10e6) if not smoke else (1e6,)):
        a = {"kind": "paced", "rate": int(rate), "seconds": secs, "threads": 1, "payload": 64, "clock": 1, "dir": work,
             "buffer-kb": 64, "buffers-per-cpu": 8}
        exps.append(Experiment(
            "paced.%dM" % (rate / 1e6), "Events lost at a paced load",
            "%d M events/s offered for %g s, 1 thread, 64 KiB x 8 buffers/CPU" % (rate / 1e6, secs), a,
            [Metric("lost_fraction", "events lost", "%", scale=100.0),
             Metric("offered_per_s", "offered rate achieved", "M/s", "higher", show=False, scale=1e-6)]))

    # Consumer.
    cev = {"full": 4000000, "quick": 1000000, "smoke": 50000}[mode]
    exps.append(Experiment(
        "consumer", "Consumer",
        "read %d M events of 64 B from a warm file (LTTng: babeltrace2, counter sink)" % max(1, cev // 1000000) if cev >= 1000000
        else "read %d events of 64 B from a warm file" % cev,
        {"kind": "consumer", "dir": work},
        [Metric("mb_per_s", "MB/s", "MB/s", "higher"),
         Metric("records_per_s", "records/s", "M/s", "higher", scale=1e-6)]))
    exps[-1].gen_events = cev

    if large and not smoke:
        exps += large_consumer_plan(work)

    # Session start and stop.
    it = {"full": 20, "quick": 10, "smoke": 3}[mode]
    exps.append(Experiment(
        "startstop", "Session control",
        "start (+ enable provider) and stop, file session, 64 KiB x 16 buffers/CPU, median of %d" % it,
        {"kind": "startstop", "iterations": it, "dir": work, "buffer-kb": 64, "buffers-per-cpu": 16},
        [Metric("start_us", "start latency", "us"), Metric("stop_us", "stop latency", "us")],
        env={"OPENETW_REGISTRY": "none"}))
    # The same through the session host (openetw-hostd, in a namespace of
    # its own): what etw_session_start/stop cost a user (the host issue asks
    # for a stop under 10 ms).
    exps.append(Experiment(
        "startstop.host", "Session control",
        "start (+ enable provider) and stop through the session host (openetw-hostd), file session, "
        "64 KiB x 16 buffers/CPU, median of %d" % it,
        {"kind": "startstop", "iterations": it, "dir": work, "buffer-kb": 64, "buffers-per-cpu": 16},
        [Metric("start_us", "start latency", "us"), Metric("stop_us", "stop latency", "us")],
        impl_args={"ours": {"registry": "fresh", "hosting": "daemon"}},
        na={"floor": NA("no floor for a session host"),
            "lttng": NA("LTTng's session daemon: see startstop")}))

    # Memory beyond the buffers.
    exps.append(Experiment(
        "memory", "Memory", "PSS beyond the buffers, file session, 64 KiB x 16 buffers/CPU (LTTng: app + daemons)",
        {"kind": "memory", "dir": work, "buffer-kb": 64, "buffers-per-cpu": 16},
        [Metric("beyond_buffers_kib", "memory beyond the buffers", "KiB")]))

    # Instructions per event (callgrind).
    if not smoke:
        cgn = 100000 if full else 30000
        cg = [(64, 1)] + ([(0, 1), (512, 1), (64, 3)] if full else [])
        for payload, clock in cg:
            a = {"kind": "cgloop", "events": cgn, "warmup": 5000, "payload": payload, "clock": clock, "dir": work,
                 "buffer-kb": 64, "buffers-per-cpu": 256}
            exps.append(Experiment(
                "callgrind.p%d.c%d" % (payload, clock), "Instructions (callgrind)",
                "write path, %d B, clock %d (valgrind makes vDSO clock reads system calls)" % (payload, clock), a,
                [Metric("instr_per_event", "instructions per event", "instr")],
                impl_args={"ours": {"mode": "file"}, "floor": {}, "lttng": {"mode": "snapshot"}},
                na={} if (payload == 64 and clock == 1) else {"lttng": NA("LTTng compared at 64 B, clock 1")},
                callgrind=True, timeout=600))
    return exps


def large_consumer_plan(work):
    """The consumer and etwdump on one file of >= 1 GB written by the engine:
    empty callbacks, time and file order, etwdump --format jsonl; with
    --consumer-baseline, the same rows with the other tree's library and
    etwdump. All are run interleaved (scheduling.run_all), in fresh processes."""
    metrics = lambda: [
        Metric("mb_per_s", "MB/s (file bytes / wall time)", "MB/s", "higher"),
        Metric("records_per_s", "records/s", "M/s", "higher", scale=1e-6),
        Metric("mb_per_cpu_s", "MB per CPU second (per core)", "MB/s", "higher"),
        Metric("resident_pct", "file in the page cache at start", "%", "higher", show=False)]
    no_lttng = NA("no LTTng run on the 1 GB file (the 'consumer' row compares babeltrace2)")
    floor_once = NA("the floor reads the file once per repetition: see the event-callback time-order row")
    variants = [("event.time", "event callback that does nothing, time order", {"callback": "event-empty"}),
                ("event.file", "event callback that does nothing, file order", {"callback": "event-empty", "order": "file"}),
                ("record.time", "record callback that does nothing, time order", {"callback": "record-empty"}),
                ("record.file", "record callback that does nothing, file order", {"callback": "record-empty", "order": "file"}),
                ("etwdump", "etwdump --format jsonl FILE > /dev/null (time order)", None)]
    exps = []
    for base in ((False, True) if programs.BASELINE_DIR else (False,)):
        for key, what, args in variants:
            eid = "consumer.large.%s%s" % (key, ".baseline" if base else "")
            label = what + (" — baseline: %s" % programs.BASELINE_DIR if base else "")
            a = dict({"kind": "consumer", "dir": work}, **(args or {}))
            na = {"lttng": no_lttng}
            if key != "event.time" or base:
                na["floor"] = floor_once
            e = Experiment(eid, "Consumer, 1 GB file", label, a, metrics(), na=na, timeout=900)
            e.interleave = "consumer.large"
            e.large = True
            e.baseline = base
            e.etwdump = args is None
            exps.append(e)
    return exps
