// The verbs of "Sessions, providers, events and records" (tests/conformance/README.md),
// through OpenEtw's Session, Provider and Consumer.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using OpenEtw;

/// <summary>A record copied (payload included) while the callback ran.</summary>
internal sealed record CopiedRecord(RecordKind Kind, Guid Guid, byte Opcode, byte Level, ushort Version,
                                    byte[] Payload, uint ProcessId, long Timestamp, ushort EventId = 0,
                                    ushort Task = 0, byte Channel = 0, ulong Keyword = 0, Guid Activity = default,
                                    Guid Related = default)
{
    /// <summary>The extended data items (type, bytes).</summary>
    public List<(ushort Type, byte[] Data)> Items { get; init; } = new();

    /// <summary>A TraceLogging event's name and decoded top-level fields; null for other records.</summary>
    public TlDecoded? Tl { get; init; }
}

/// <summary>What one consumer delivered: records, callback counts, statistics, header.</summary>
internal sealed class Delivery
{
    public readonly List<CopiedRecord> Records = new();
    public int EventCallbacks, BufferCallbacks, RecordCallbacks;
    public int StopAfter;
    public ConsumerStatistics Stats;
    public LogfileHeader? Header;

    public ConsumerOptions Options(ConsumerOrder order) => new()
    {
        Order = order,
        OnRecord = r =>
        {
            // An EVENT_HEADER record's RELATED_ACTIVITYID item (the zero GUID without one).
            Guid related = default;
            var items = new List<(ushort, byte[])>();
            for (int i = 0; i < r.ExtendedCount; i++)
            {
                ExtendedItem x = r.GetExtendedItem(i);
                if (x.ExtType == 1 && x.Data.Length == 16)
                    related = new Guid(x.Data);
                items.Add((x.ExtType, x.Data.ToArray()));
            }
            Records.Add(new CopiedRecord(r.Kind, r.Guid, r.Opcode, (byte)r.Level, r.Version, r.Payload.ToArray(),
                                         r.ProcessId, r.Timestamp, r.EventId, r.Task, r.Channel, r.Keyword,
                                         r.ActivityId, related)
                        { Items = items, Tl = TlDecoded.Of(r, items) });
            return ++RecordCallbacks != StopAfter;
        },
        OnEvent = e => { EventCallbacks++; return true; },
        OnBuffer = b => { BufferCallbacks++; return true; },
    };
}

internal sealed partial class SessionSteps
{
    private Session? _session;
    private Provider? _provider;
    private readonly List<ProviderEnableInfo> _notifications = new();
    private Delivery _delivery = new();
    private Consumer? _liveConsumer;
    private Thread? _liveThread;
    private Delivery? _liveDelivery;
    private Exception? _liveError;
    private bool _liveFinished;

    private static readonly string Cancelled = OpenEtwLibrary.StatusName(Status.Cancelled);

    /// <summary>Stops and closes S, unregisters R, clears L and V, ignoring statuses.</summary>
    public void Reset()
    {
        try { _session?.Dispose(); } catch (Exception) { }
        try { _provider?.Dispose(); } catch (Exception) { }
        if (_liveThread != null)
        {
            _liveConsumer?.Cancel();
            _liveThread.Join();
        }
        _liveConsumer?.Dispose();
        _session = null;
        _provider = null;
        _liveConsumer = null;
        _liveThread = null;
        _notifications.Clear();
        _delivery = new Delivery();
    }

    private Session S => _session ?? throw new Failure("no session");
    private Provider R => _provider ?? throw new Failure("no provider");

    private static ulong Num(Dictionary<string, Value> f, string key, ulong fallback = 0) =>
        f.Remove(key, out Value v) ? Scenario.Number(v) : fallback;

    private static void Expect(string want, string? wantMessage, string got, string message)
    {
        if (got != want) throw new Failure($"status {got} ({message}), expected {want}");
        if (wantMessage != null && !message.Contains(wantMessage, StringComparison.Ordinal))
            throw new Failure($"message \"{message}\" lacks \"{wantMessage}\"");
    }

    private static (string Want, string? Message) TakeStatus(Dictionary<string, Value> f) =>
        (f.Remove("status", out Value s) ? s.Text : "ETW_OK", f.Remove("message", out Value m) ? m.Text : null);

    public bool Step(string verb, Dictionary<string, Value> f, Runner runner)
    {
        switch (verb)
        {
            case "start":
            {
                Properties p = runner.Props;
                SessionOptions? options = f.Remove("flags", out Value flags) ? StartOptions(flags) : null;
                Session? started = Runner.Call(f, () => Session.Start(p, options));
                if (started != null) _session = started;
                break;
            }
            case "open":
            {
                string name = f.Take("name").Text;
                if (_session != null)
                {
                    _session.StopOnDispose = false; // "closed first": closing does not stop
                    _session.Dispose();
                    _session = null;
                }
                _session = Runner.Call(f, () => Session.Open(name));
                break;
            }
            case "query": Runner.Call(f, () => S.Query(runner.Props)); break;
            case "flush": Runner.Call(f, () => S.Flush(runner.Props)); break;
            case "stop": Runner.Call(f, () => S.Stop(runner.Props)); break;
            case "grant":
            {
                uint uid = (uint)Scenario.Number(f.Take("uid"));
                var rights = (SessionRights)(uint)Scenario.Number(f.Take("rights"));
                Runner.Call(f, () => S.Grant(uid, rights));
                break;
            }
            case "flush_to_file":
            {
                string path = f.Take("path").Text;
                Runner.Call(f, () => S.FlushToFile(path, runner.Props));
                break;
            }
            case "register":
            {
                Guid guid = Scenario.GuidOf(f.Take("guid"));
                Provider? registered = Runner.Call(f, () => new Provider(guid, _notifications.Add));
                if (registered != null) _provider = registered;
                break;
            }
            case "enable":
            {
                Guid guid = Scenario.GuidOf(f.Take("guid"));
                var level = (EtwLevel)Num(f, "level");
                ulong any = Num(f, "any"), all = Num(f, "all");
                Runner.Call(f, () => S.EnableProvider(guid, level, any, all));
                break;
            }
            case "disable":
            {
                Guid guid = Scenario.GuidOf(f.Take("guid"));
                Runner.Call(f, () => S.DisableProvider(guid));
                break;
            }
            case "expect_callback":
            {
                int count = (int)Num(f, "count");
                if (_notifications.Count != count) throw new Failure($"{_notifications.Count} enable callbacks, expected {count}");
                if (count == 0) break;
                ProviderEnableInfo last = _notifications[^1];
                Compare(f, "is_enabled", last.IsEnabled ? 1UL : 0UL);
                Compare(f, "level", (ulong)last.Level);
                Compare(f, "any", last.MatchAnyKeyword);
                Compare(f, "all", last.MatchAllKeyword);
                break;
            }
            case "is_enabled":
            {
                bool got = R.IsEnabled((EtwLevel)Num(f, "level"), Num(f, "flags"));
                ulong want = Scenario.Number(f.Take("value"));
                if ((got ? 1UL : 0UL) != want) throw new Failure($"is_enabled is {(got ? 1 : 0)}, expected {want}");
                break;
            }
            case "write":
            {
                Provider provider = R;
                int count = (int)Num(f, "count", 1);
                Guid guid = f.Remove("guid", out Value g) ? Scenario.GuidOf(g) : provider.Guid;
                byte type = (byte)Num(f, "type");
                var level = (EtwLevel)Num(f, "level");
                ushort version = (ushort)Num(f, "version");
                byte[] payload = f.Remove("payload", out Value p) ? Encoding.UTF8.GetBytes(p.Text) : Array.Empty<byte>();
                var (want, wantMessage) = TakeStatus(f);
                for (int i = 0; i < count; i++)
                {
                    string got = "ETW_OK", message = "";
                    try { provider.Write(guid, type, level, version, payload); }
                    catch (OpenEtwException e) { got = e.StatusName; message = e.Message; }
                    Expect(want, wantMessage, got, message);
                }
                break;
            }
            case "write_event":
            {
                Provider provider = R;
                int count = (int)Num(f, "count", 1);
                var d = new EventDescriptor((ushort)Num(f, "id"), (EtwLevel)Num(f, "level"), Num(f, "keyword"),
                                            (byte)Num(f, "version"), (byte)Num(f, "channel"), (byte)Num(f, "opcode"),
                                            (ushort)Num(f, "task"));
                Guid? activity = f.Remove("activity", out Value a) ? Scenario.GuidOf(a) : null;
                Guid? related = f.Remove("related", out Value rel) ? Scenario.GuidOf(rel) : null;
                byte[] payload = f.Remove("payload", out Value p) ? Encoding.UTF8.GetBytes(p.Text) : Array.Empty<byte>();
                var (want, wantMessage) = TakeStatus(f);
                for (int i = 0; i < count; i++)
                {
                    string got = "ETW_OK", message = "";
                    try { provider.WriteEvent(d, payload, activity, related); }
                    catch (OpenEtwException e) { got = e.StatusName; message = e.Message; }
                    Expect(want, wantMessage, got, message);
                }
                break;
            }
            case "unregister":
                R.Dispose();
                _provider = null;
                break;
            case "write_file":
                File.WriteAllBytes(f.Take("path").Text, Encoding.UTF8.GetBytes(f.Take("text").Text));
                break;
            case "process":
            {
                string file = f.Take("file").Text;
                ConsumerOrder order = f.Remove("order", out Value o) ? o.Text switch
                {
                    "time" => ConsumerOrder.Time,
                    "file" => ConsumerOrder.File,
                    _ => throw new Failure($"unknown order {o.Text}"),
                } : ConsumerOrder.Time;
                _delivery = new Delivery { StopAfter = (int)Num(f, "stop_after") };
                var (want, wantMessage) = TakeStatus(f);
                Consumer consumer;
                try { consumer = Consumer.Open(file, _delivery.Options(order)); }
                catch (OpenEtwException e)
                {
                    Expect(want, wantMessage, e.StatusName, e.Message);
                    break;
                }
                using (consumer)
                {
                    _delivery.Header = consumer.GetLogfileHeader(0);
                    string got = "ETW_OK", message = "";
                    try { if (!consumer.Process()) got = Cancelled; }
                    catch (OpenEtwException e) { got = e.StatusName; message = e.Message; }
                    _delivery.Stats = consumer.Statistics;
                    Expect(want, wantMessage, got, message);
                }
                break;
            }
            case "live_start":
            {
                string name = f.Take("name").Text;
                var delivery = new Delivery();
                Consumer? consumer = Runner.Call(f, () => Consumer.OpenSession(name, delivery.Options(ConsumerOrder.Time)));
                if (consumer == null) break;
                _liveConsumer = consumer;
                _liveDelivery = delivery;
                _liveError = null;
                _liveThread = new Thread(() =>
                {
                    try { _liveFinished = consumer.Process(); }
                    catch (Exception e) { _liveError = e; }
                }) { IsBackground = true, Name = "live consumer" };
                _liveThread.Start();
                break;
            }
            case "live_join":
            {
                var (want, wantMessage) = TakeStatus(f);
                Thread thread = _liveThread ?? throw new Failure("no live consumer");
                thread.Join();
                _liveThread = null;
                string got = "ETW_OK", message = "";
                if (_liveError is OpenEtwException e) { got = e.StatusName; message = e.Message; }
                else if (_liveError != null) throw new Failure($"the live consumer threw {_liveError}");
                else if (!_liveFinished) got = Cancelled;
                _liveDelivery!.Stats = _liveConsumer!.Statistics;
                _liveDelivery.Header = _liveConsumer.GetLogfileHeader(0);
                _delivery = _liveDelivery;
                _liveConsumer.Dispose();
                _liveConsumer = null;
                Expect(want, wantMessage, got, message);
                break;
            }
            case "expect_records":
            {
                int count = (int)Num(f, "count");
                IEnumerable<CopiedRecord> matching = _delivery.Records;
                foreach (var (key, v) in f.ToList())
                {
                    f.Remove(key);
                    matching = key switch
                    {
                        "kind" => Filter(matching, r => (ulong)r.Kind == Scenario.Number(v)),
                        "guid" => Filter(matching, r => r.Guid == Scenario.GuidOf(v)),
                        "opcode" => Filter(matching, r => r.Opcode == Scenario.Number(v)),
                        "level" => Filter(matching, r => r.Level == Scenario.Number(v)),
                        "version" => Filter(matching, r => r.Version == Scenario.Number(v)),
                        "event_id" => Filter(matching, r => r.EventId == Scenario.Number(v)),
                        "task" => Filter(matching, r => r.Task == Scenario.Number(v)),
                        "channel" => Filter(matching, r => r.Channel == Scenario.Number(v)),
                        "keyword" => Filter(matching, r => r.Keyword == Scenario.Number(v)),
                        "activity" => Filter(matching, r => r.Activity == Scenario.GuidOf(v)),
                        "related" => Filter(matching, r => r.Related == Scenario.GuidOf(v)),
                        "payload" => Filter(matching, r => r.Payload.AsSpan().SequenceEqual(Encoding.UTF8.GetBytes(v.Text))),
                        "process_id" => Filter(matching, r => r.ProcessId ==
                            (v.Text == "self" ? (ulong)Environment.ProcessId : Scenario.Number(v))),
                        _ => throw new Failure($"unknown field {key}"),
                    };
                }
                int got = matching.Count();
                if (got != count) throw new Failure($"{got} records match, expected {count} (of {_delivery.Records.Count})");
                break;
            }
            case "expect_ordered":
                for (int i = 1; i < _delivery.Records.Count; i++)
                    if (_delivery.Records[i].Timestamp < _delivery.Records[i - 1].Timestamp)
                        throw new Failure($"record {i} goes back in time");
                break;
            case "expect_stats":
            {
                ConsumerStatistics s = _delivery.Stats;
                foreach (var (key, v) in f.ToList())
                {
                    f.Remove(key);
                    ulong got = key switch
                    {
                        "records" => s.Records,
                        "buffers" => s.Buffers,
                        "corrupt_records" => s.CorruptRecords,
                        "corrupt_buffers" => s.CorruptBuffers,
                        "events_lost" => s.EventsLost,
                        "event_callbacks" => (ulong)_delivery.EventCallbacks,
                        "buffer_callbacks" => (ulong)_delivery.BufferCallbacks,
                        _ => throw new Failure($"unknown field {key}"),
                    };
                    if (got != Scenario.Number(v)) throw new Failure($"{key} is {got}, expected {Scenario.Number(v)}");
                }
                break;
            }
            case "expect_header":
            {
                LogfileHeader h = _delivery.Header ?? throw new Failure("no logfile header");
                foreach (var (key, v) in f.ToList())
                {
                    f.Remove(key);
                    string got = key switch
                    {
                        "logger_name" => h.LoggerName,
                        "log_file_name" => h.LogFileName,
                        "events_lost" => h.Header.EventsLost.ToString(CultureInfo.InvariantCulture),
                        "buffers_written" => h.Header.BuffersWritten.ToString(CultureInfo.InvariantCulture),
                        "buffer_size" => h.Header.BufferSize.ToString(CultureInfo.InvariantCulture),
                        "log_file_mode" => h.Header.LogFileMode.ToString(CultureInfo.InvariantCulture),
                        "pointer_size" => h.Header.PointerSize.ToString(CultureInfo.InvariantCulture),
                        _ => throw new Failure($"unknown field {key}"),
                    };
                    string want = v.Quoted ? v.Text : Scenario.Number(v).ToString(CultureInfo.InvariantCulture);
                    if (got != want) throw new Failure($"header {key} is {got}, expected {want}");
                }
                break;
            }
            default:
                return ModernStep(verb, f);
        }
        return true;
    }

    /// <summary>start flags=: each ETW_SESSION_* start option bit sets its SessionOptions member.</summary>
    private static SessionOptions StartOptions(Value flags)
    {
        ulong left = Scenario.Number(flags);
        bool Take(string name)
        {
            ulong bit = Scenario.Number(new Value(name, false));
            bool set = (left & bit) != 0;
            left &= ~bit;
            return set;
        }
        var options = new SessionOptions
        {
            Lossless = Take("ETW_SESSION_LOSSLESS"),
            ReplaceOrphan = Take("ETW_SESSION_REPLACE_ORPHAN"),
            TakeOverOrphan = Take("ETW_SESSION_TAKE_OVER_ORPHAN"),
        };
        if (left != 0) throw new Failure($"flags={flags.Text} has bits that are no start option");
        return options;
    }

    private static IEnumerable<CopiedRecord> Filter(IEnumerable<CopiedRecord> records, Func<CopiedRecord, bool> keep) =>
        records.Where(keep).ToList();

    private static void Compare(Dictionary<string, Value> f, string key, ulong got)
    {
        if (f.Remove(key, out Value v) && got != Scenario.Number(v))
            throw new Failure($"{key} is {got}, expected {Scenario.Number(v)}");
    }
}
