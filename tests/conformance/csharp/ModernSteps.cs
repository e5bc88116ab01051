// The verbs of "Modern providers: TraceLogging, filters, properties" (tests/conformance/README.md),
// through OpenEtw's EnableOptions and filters, Provider.Write with TraceLoggingFields, and the
// DecodedEvent of each record.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Runtime.InteropServices;
using OpenEtw;

/// <summary>One TraceLogging field as the scenario spells it: name, type word, canonical value.</summary>
internal readonly record struct TlField(string Name, string Type, string Value);

/// <summary>A TraceLogging record's name and its top-level fields, decoded while the callback ran.</summary>
internal sealed record TlDecoded(string Name, List<TlField> Fields)
{
    private const ushort SchemaTl = 11; // ETW_EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL
    private const ushort OutBoolean = 13, OutUtf8 = 35; // TDH_OUTTYPE_BOOLEAN, TDH_OUTTYPE_UTF8

    /// <summary>The record's decoded TraceLogging fields, or null when it is no TraceLogging event.</summary>
    public static TlDecoded? Of(TraceRecord r, List<(ushort Type, byte[] Data)> items)
    {
        if (!items.Any(i => i.Type == SchemaTl))
            return null;
        DecodedEvent? d;
        try { d = r.Decode(); }
        catch (OpenEtwException) { return null; }
        if (d is null)
            return null;
        var fields = new List<TlField>();
        foreach (DecodedProperty p in d.Properties.Where(p => p.Parent < 0))
        {
            object v = d.Fields.TryGetValue(p.Name, out object? o) ? o : "";
            string? type = (p.Kind, p.InType, p.OutType) switch
            {
                // The integers and f64: one in-type each, the default out-type.
                (0, 7, 0) => "i32", (0, 8, 0) => "u32", (0, 9, 0) => "i64", (0, 10, 0) => "u64", (0, 12, 0) => "f64",
                // bool: TraceLogging's BOOL32, or EventSource's UINT8 shown as a boolean.
                (0, 13, 0) or (0, 4, OutBoolean) => "bool",
                // str: UTF-16 strings, or 8-bit ones holding UTF-8.
                (0, 1 or 22, _) or (0, 2 or 23, OutUtf8) => "str",
                _ => null,
            };
            string text = type switch
            {
                "i32" or "i64" => Convert.ToInt64(v, CultureInfo.InvariantCulture).ToString(CultureInfo.InvariantCulture),
                "u32" or "u64" => Convert.ToUInt64(v, CultureInfo.InvariantCulture).ToString(CultureInfo.InvariantCulture),
                "f64" => Convert.ToDouble(v, CultureInfo.InvariantCulture).ToString("R", CultureInfo.InvariantCulture),
                "bool" => v is true ? "1" : "0",
                "str" => v as string ?? p.Formatted,
                _ => p.Formatted,
            };
            fields.Add(new TlField(p.Name, type ?? $"in-type {p.InType} out-type {p.OutType} kind {p.Kind}", text));
        }
        return new TlDecoded(d.EventName, fields);
    }
}

internal sealed partial class SessionSteps
{
    [DllImport("libc", ExactSpelling = true)]
    private static extern uint geteuid();

    /// <summary>fields="a:i32=1,b:str=x" as (name, type, the value as it reads back).</summary>
    private static List<TlField> ParseTlFields(string text)
    {
        var fields = new List<TlField>();
        if (text.Length == 0)
            return fields;
        foreach (string part in text.Split(','))
        {
            int colon = part.IndexOf(':'), eq = part.IndexOf('=');
            if (colon <= 0 || eq < colon) throw new Failure($"field \"{part}\" is not name:type=value");
            string name = part[..colon], type = part[(colon + 1)..eq], value = part[(eq + 1)..];
            string canonical = type switch
            {
                "i32" => int.Parse(value, CultureInfo.InvariantCulture).ToString(CultureInfo.InvariantCulture),
                "u32" => uint.Parse(value, CultureInfo.InvariantCulture).ToString(CultureInfo.InvariantCulture),
                "i64" => long.Parse(value, CultureInfo.InvariantCulture).ToString(CultureInfo.InvariantCulture),
                "u64" => ulong.Parse(value, CultureInfo.InvariantCulture).ToString(CultureInfo.InvariantCulture),
                "f64" => double.Parse(value, CultureInfo.InvariantCulture).ToString("R", CultureInfo.InvariantCulture),
                "bool" => value == "0" ? "0" : value == "1" ? "1" : throw new Failure($"bool field {name} is {value}, not 0 or 1"),
                "str" => value,
                _ => throw new Failure($"unknown TraceLogging field type {type}"),
            };
            fields.Add(new TlField(name, type, canonical));
        }
        return fields;
    }

    /// <summary>
    /// The fields as the binding writes them: each type through its own typed Add, bool and
    /// string as .NET's EventSource writes them (UINT8 shown as a boolean, counted UTF-16).
    /// </summary>
    private static TraceLoggingFields ToWrite(List<TlField> fields)
    {
        var data = new TraceLoggingFields();
        foreach (TlField f in fields)
        {
            IFormatProvider c = CultureInfo.InvariantCulture;
            _ = f.Type switch
            {
                "i32" => data.Add(f.Name, int.Parse(f.Value, c)),
                "u32" => data.Add(f.Name, uint.Parse(f.Value, c)),
                "i64" => data.Add(f.Name, long.Parse(f.Value, c)),
                "u64" => data.Add(f.Name, ulong.Parse(f.Value, c)),
                "f64" => data.Add(f.Name, double.Parse(f.Value, c)),
                "bool" => data.Add(f.Name, f.Value == "1"),
                _ => data.Add(f.Name, f.Value),
            };
        }
        return data;
    }

    private static ushort[] Ids(Value v) =>
        v.Text.Length == 0 ? Array.Empty<ushort>()
                           : v.Text.Split(',').Select(t => ushort.Parse(t, CultureInfo.InvariantCulture)).ToArray();

    private static byte[] Hex(string text)
    {
        if (text.Length % 2 != 0) throw new Failure($"odd hex \"{text}\"");
        return Convert.FromHexString(text);
    }

    private bool ModernStep(string verb, Dictionary<string, Value> f)
    {
        switch (verb)
        {
            case "enable_ex":
            {
                Guid guid = Scenario.GuidOf(f.Take("guid"));
                var level = (EtwLevel)Num(f, "level");
                ulong any = Num(f, "any"), all = Num(f, "all");
                var options = new EnableOptions { Properties = (EnableProperties)Num(f, "properties") };
                bool include = Num(f, "filter_include", 1) != 0;
                if (f.Remove("filter_event_ids", out Value ids))
                    options.Filters.Add(new EventIdFilter(include, Ids(ids)));
                if (f.Remove("filter_pid", out Value pid))
                    options.Filters.Add(new PidFilter(!pid.Quoted && pid.Text == "self"
                        ? new[] { Environment.ProcessId }
                        : pid.Text.Split(',').Select(t => int.Parse(t, CultureInfo.InvariantCulture)).ToArray()));
                if (f.Remove("filter_exe", out Value exe))
                    options.Filters.Add(new ExecutableNameFilter(exe.Text));
                if (f.Remove("filter_event_names", out Value names))
                    options.Filters.Add(new EventNameFilter(include, names.Text.Length == 0 ? Array.Empty<string>() : names.Text.Split(',')));
                if (f.Remove("filter_stackwalk_ids", out Value stack))
                    options.Filters.Add(new StackwalkFilter(Ids(stack)));
                if (f.Remove("filter_raw", out Value raw))
                {
                    int colon = raw.Text.IndexOf(':');
                    if (colon <= 0) throw new Failure($"filter_raw \"{raw.Text}\" is not TYPE:HEX");
                    uint type = (uint)Scenario.Number(new Value(raw.Text[..colon], false));
                    options.Filters.Add(new RawEventFilter(type, Hex(raw.Text[(colon + 1)..])));
                }
                Runner.Call(f, () => S.EnableProvider(guid, level, any, all, options));
                break;
            }
            case "write_tl":
            {
                Provider provider = R;
                int count = (int)Num(f, "count", 1);
                string name = f.Take("name").Text;
                var options = new TraceLoggingOptions
                {
                    Level = (EtwLevel)Num(f, "level"), Keywords = Num(f, "keyword"), Opcode = (byte)Num(f, "opcode"),
                };
                TraceLoggingFields data = ToWrite(f.Remove("fields", out Value fv) ? ParseTlFields(fv.Text) : new List<TlField>());
                var (want, wantMessage) = TakeStatus(f);
                for (int i = 0; i < count; i++)
                {
                    string got = "ETW_OK", message = "";
                    try { provider.Write(name, options, data); }
                    catch (OpenEtwException e) { got = e.StatusName; message = e.Message; }
                    Expect(want, wantMessage, got, message);
                }
                break;
            }
            case "expect_tl":
            {
                int count = (int)Num(f, "count");
                string name = f.Take("name").Text;
                List<TlField>? fields = f.Remove("fields", out Value fv) ? ParseTlFields(fv.Text) : null;
                int got = _delivery.Records.Count(r => r.Tl is { } tl && tl.Name == name &&
                                                        (fields is null || tl.Fields.SequenceEqual(fields)));
                if (got != count)
                {
                    string seen = string.Join("; ", _delivery.Records.Where(r => r.Tl?.Name == name).Take(1)
                        .Select(r => string.Join(",", r.Tl!.Fields.Select(x => $"{x.Name}:{x.Type}={x.Value}"))));
                    throw new Failure($"{got} TraceLogging records {name} match, expected {count} (one reads {seen})");
                }
                break;
            }
            case "expect_items":
            {
                int count = (int)Num(f, "count");
                IEnumerable<CopiedRecord> matching = _delivery.Records;
                foreach (var (key, v) in f.ToList())
                {
                    f.Remove(key);
                    matching = key switch
                    {
                        "event_id" => Filter(matching, r => r.EventId == Scenario.Number(v)),
                        "stack" => Filter(matching, r => HasStack(r) == (Scenario.Number(v) != 0)),
                        "sid" => Filter(matching, r => !v.Quoted && v.Text == "self"
                            ? Sid(r) == $"S-1-22-1-{geteuid()}"
                            : Scenario.Number(v) == 0 ? Sid(r) is null : throw new Failure($"sid={v.Text}: self or 0")),
                        "ts_id" => Filter(matching, r => r.Items.Any(i => i.Type == ExtendedItems.TsId) == (Scenario.Number(v) != 0)),
                        "process_start_key" => Filter(matching, r => Key(r, ExtendedItems.ProcessStartKey, Scenario.Number(v))),
                        "event_key" => Filter(matching, r => Key(r, ExtendedItems.EventKey, Scenario.Number(v))),
                        _ => throw new Failure($"unknown field {key}"),
                    };
                }
                int got = matching.Count();
                if (got != count) throw new Failure($"{got} records match, expected {count} (of {_delivery.Records.Count})");
                break;
            }
            default:
                return false;
        }
        return true;
    }

    private static bool HasStack(CopiedRecord r) =>
        r.Items.Any(i => (i.Type == ExtendedItems.StackTrace64 || i.Type == ExtendedItems.StackTrace32) &&
                         ExtendedItems.ReadStack(i.Type, i.Data, out _).Length > 0);

    private static string? Sid(CopiedRecord r) =>
        r.Items.Where(i => i.Type == ExtendedItems.Sid).Select(i => ExtendedItems.SidString(i.Type, i.Data)).FirstOrDefault();

    // want 1: an item holding a nonzero 64-bit value; want 0: no such item.
    private static bool Key(CopiedRecord r, ushort type, ulong want)
    {
        var found = r.Items.Where(i => i.Type == type).ToList();
        return want != 0 ? found.Any(i => i.Data.Length == 8 && BitConverter.ToUInt64(i.Data) != 0) : found.Count == 0;
    }
}
