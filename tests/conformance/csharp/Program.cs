// C# conformance runner: executes tests/conformance/scenario.txt through the OpenEtw
// assembly (format and verbs: tests/conformance/README.md).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Text;
using OpenEtw;

internal sealed class Failure : Exception
{
    public Failure(string message) : base(message) { }
}

/// <summary>A field value: a quoted string or a bare word.</summary>
internal readonly record struct Value(string Text, bool Quoted);

/// <summary>{tmp} and {pid} in strings (README: "Sessions, providers, events and records").</summary>
internal static class Placeholders
{
    public static readonly string Tmp = Path.Combine(Path.GetTempPath(), $"openetw-conformance-cs-{Environment.ProcessId}");

    public static string Apply(string text) =>
        text.Replace("{tmp}", Tmp, StringComparison.Ordinal)
            .Replace("{pid}", Environment.ProcessId.ToString(CultureInfo.InvariantCulture), StringComparison.Ordinal);
}

internal static class Scenario
{
    // (key, value) pairs; the verb and positional words have an empty key.
    public static List<(string Key, Value Value)> Tokenize(string line)
    {
        var tokens = new List<(string, Value)>();
        int i = 0, n = line.Length;
        while (i < n)
        {
            if (char.IsWhiteSpace(line[i])) { i++; continue; }
            if (line[i] == '#') break;
            string key = "";
            int j = i;
            while (j < n && (char.IsLetterOrDigit(line[j]) || line[j] == '_' || line[j] == '.')) j++;
            if (j < n && j > i && line[j] == '=' && (char.IsLetter(line[i]) || line[i] == '_'))
            {
                key = line[i..j];
                i = j + 1;
            }
            if (i < n && line[i] == '"')
            {
                var text = new StringBuilder();
                for (i++; i < n && line[i] != '"'; i++)
                {
                    if (line[i] == '\\' && i + 1 < n) i++;
                    text.Append(line[i]);
                }
                if (i >= n) throw new Failure("unterminated string");
                i++;
                string s = text.ToString();
                if (i < n && line[i] == '*')
                {
                    int k = ++i;
                    while (i < n && char.IsDigit(line[i])) i++;
                    s = string.Concat(Enumerable.Repeat(s, int.Parse(line[k..i], CultureInfo.InvariantCulture)));
                }
                tokens.Add((key, new Value(Placeholders.Apply(s), true)));
            }
            else
            {
                int k = i;
                while (i < n && !char.IsWhiteSpace(line[i])) i++;
                tokens.Add((key, new Value(line[k..i], false)));
            }
        }
        return tokens;
    }

    // An integer, or ETW_* constants joined with '|', resolved through the binding.
    public static ulong Number(Value v)
    {
        if (v.Quoted) throw new Failure($"expected a number, got \"{v.Text}\"");
        ulong total = 0;
        foreach (string part in v.Text.Split('|'))
        {
            if (part.StartsWith("ETW_", StringComparison.Ordinal) || part.StartsWith("OPENETW_", StringComparison.Ordinal))
            {
                if (!Constants.TryGetValue(part, out ulong c)) throw new Failure($"the binding has no constant {part}");
                total |= c;
            }
            else if (part.StartsWith('-'))
                total |= unchecked((ulong)long.Parse(part, CultureInfo.InvariantCulture));
            else if (part.StartsWith("0x", StringComparison.OrdinalIgnoreCase))
                total |= ulong.Parse(part[2..], NumberStyles.HexNumber, CultureInfo.InvariantCulture);
            else
                total |= ulong.Parse(part, CultureInfo.InvariantCulture);
        }
        return total;
    }

    public static Guid GuidOf(Value v) => Guid.Parse(v.Text);
}

internal sealed class Runner
{
    private readonly Dictionary<string, (int At, int Size)> _fields = new();
    private readonly Dictionary<string, byte[]> _blocks = new();
    private Properties? _props, _original;
    private byte[] _block = Array.Empty<byte>();
    public string Case = "";

    public void Reset()
    {
        _props = null;
        _original = null;
        _block = Array.Empty<byte>();
        _live.Reset();
    }

    private readonly SessionSteps _live = new();

    internal Properties Props => _props ?? throw new Failure("no properties object");

    internal static T? Call<T>(Dictionary<string, Value> fields, Func<T> action)
    {
        string want = fields.Remove("status", out Value s) ? s.Text : "ETW_OK";
        string? wantMessage = fields.Remove("message", out Value m) ? m.Text : null;
        string got = "ETW_OK", message = "";
        T? result = default;
        try { result = action(); }
        catch (OpenEtwException e) { got = e.StatusName; message = e.Message; }
        if (got != want) throw new Failure($"status {got} ({message}), expected {want}");
        if (wantMessage != null && !message.Contains(wantMessage, StringComparison.Ordinal))
            throw new Failure($"message \"{message}\" lacks \"{wantMessage}\"");
        return result;
    }

    internal static void Call(Dictionary<string, Value> fields, Action action) => Call<bool>(fields, () => { action(); return true; });

    private (int At, int Size) Field(string name) =>
        _fields.TryGetValue(name, out var f) ? f : throw new Failure($"unknown field {name}");

    private void Check(int at, int size)
    {
        if (at + size > _block.Length) throw new Failure($"offset {at} is past the block ({_block.Length} bytes)");
    }

    private ulong Read(int at, int size)
    {
        Check(at, size);
        ulong v = 0;
        for (int i = size - 1; i >= 0; i--) v = (v << 8) | _block[at + i];
        return v;
    }

    private void Write(int at, int size, ulong value)
    {
        Check(at, size);
        for (int i = 0; i < size; i++) _block[at + i] = (byte)(value >> (8 * i));
    }

    private int Offset(Value v) => _fields.ContainsKey(v.Text) ? (int)Read(Field(v.Text).At, Field(v.Text).Size) : (int)Scenario.Number(v);

    // The binding's own record layout: offsets of nested members through Marshal.OffsetOf.
    private static (int At, int Size) BindingField(string name)
    {
        Type type = typeof(EventTraceProperties);
        int at = 0, size = 0;
        foreach (string part in name.Split('.'))
        {
            var info = type.GetField(part) ?? throw new Failure($"the binding's record has no member {name}");
            at += (int)Marshal.OffsetOf(type, part);
            type = info.FieldType;
            size = Marshal.SizeOf(type);
        }
        return (at, size);
    }

    public void Step(string verb, Dictionary<string, Value> f)
    {
        switch (verb)
        {
            case "layout":
                if (IntPtr.Size != (int)Scenario.Number(f.Take("pointer_size"))) throw new Failure("the scenario describes another pointer size");
                if (Marshal.SizeOf<EventTraceProperties>() != (int)Scenario.Number(f.Take("record_size"))) throw new Failure("record size differs");
                break;
            case "field":
            {
                string name = f.Take("name").Text;
                var declared = ((int)Scenario.Number(f.Take("at")), (int)Scenario.Number(f.Take("size")));
                var actual = BindingField(name);
                if (declared != actual) throw new Failure($"field {name} is at {actual} in the binding, {declared} in the scenario");
                _fields[name] = declared;
                break;
            }
            case "case": Reset(); break;
            case "create":
            {
                string name = f.Take("name").Text;
                Properties? created = Call(f, () => new Properties(name));
                if (created != null) _props = created;
                break;
            }
            case "set":
            {
                Properties p = Props;
                var control = f.Where(kv => kv.Key is "status" or "message").ToDictionary(kv => kv.Key, kv => kv.Value);
                foreach (var (member, v) in f.Where(kv => kv.Key is not ("status" or "message")).ToList())
                {
                    f.Remove(member);
                    Action set = member switch
                    {
                        "session_name" => () => p.SessionName = v.Text,
                        "log_file_name" => () => p.LogFileName = v.Text,
                        "buffer_size" => () => p.BufferSize = (uint)Scenario.Number(v),
                        "minimum_buffers" => () => p.MinimumBuffers = (uint)Scenario.Number(v),
                        "maximum_buffers" => () => p.MaximumBuffers = (uint)Scenario.Number(v),
                        "maximum_file_size" => () => p.MaximumFileSize = (uint)Scenario.Number(v),
                        "log_file_mode" => () => p.LogFileMode = (LogFileMode)Scenario.Number(v),
                        "flush_timer" => () => p.FlushTimer = (uint)Scenario.Number(v),
                        "enable_flags" => () => p.EnableFlags = (KernelFlags)Scenario.Number(v),
                        "clock_type" => () => p.ClockType = (ClockType)Scenario.Number(v),
                        "flush_threshold" => () => p.FlushThreshold = unchecked((int)Scenario.Number(v)),
                        "guid" => () => p.Guid = Scenario.GuidOf(v),
                        _ => throw new Failure($"unknown member {member}"),
                    };
                    Call(new Dictionary<string, Value>(control), set);
                }
                foreach (string k in control.Keys) f.Remove(k);
                break;
            }
            case "get":
                foreach (var (member, v) in f.ToList())
                {
                    f.Remove(member);
                    Properties p = Props;
                    (string got, string want) = member switch
                    {
                        "session_name" => (p.SessionName, v.Text),
                        "log_file_name" => (p.LogFileName ?? "", v.Text),
                        "guid" => (p.Guid.ToString(), Scenario.GuidOf(v).ToString()),
                        _ => (GetNumber(p, member).ToString(CultureInfo.InvariantCulture), Scenario.Number(v).ToString(CultureInfo.InvariantCulture)),
                    };
                    if (got != want) throw new Failure($"{member} is {got}, expected {want}");
                }
                break;
            case "clone":
                _original = Props;
                _props = Props.Clone();
                break;
            case "original":
                _props = _original ?? throw new Failure("no original");
                break;
            case "validate":
                Call(f, Props.Validate);
                break;
            case "export":
            {
                Properties p = Props;
                int size = (int)Scenario.Number(f.Take("size"));
                if (p.BlockSize != size) throw new Failure($"block size is {p.BlockSize}, expected {size}");
                try
                {
                    p.ExportTo(new byte[size - 1]);
                    throw new Failure("a buffer one byte short was accepted");
                }
                catch (OpenEtwException e) when (e.Status == Status.MoreData) { }
                _block = Call(f, p.ToBlock) ?? Array.Empty<byte>();
                _blocks[Case] = (byte[])_block.Clone();
                EventTraceProperties record = p.GetRecord();
                ReadOnlySpan<byte> recordBytes = MemoryMarshal.AsBytes(MemoryMarshal.CreateReadOnlySpan(ref record, 1));
                if (!recordBytes.SequenceEqual(_block.AsSpan(0, recordBytes.Length)))
                    throw new Failure("the block's fixed part differs from get_record()");
                break;
            }
            case "import":
            {
                byte[] block = _block;
                Properties? imported = Call(f, () => Properties.FromBlock(block));
                if (imported != null) _props = imported;
                break;
            }
            case "roundtrip":
                using (var back = Properties.FromBlock(_block))
                    if (!back.ToBlock().AsSpan().SequenceEqual(_block)) throw new Failure("the block changed in an import/export round trip");
                break;
            case "expect":
            {
                string name = f.Take("field").Text;
                var (at, size) = Field(name);
                Check(at, size);
                byte[] want = FieldBytes(name, f.Take("value"));
                if (!_block.AsSpan(at, size).SequenceEqual(want))
                    throw new Failure($"field {name} is {Convert.ToHexString(_block, at, size)}, expected {Convert.ToHexString(want)} (bytes in block order)");
                break;
            }
            case "expect_text":
            {
                int at = Offset(f.Take("at"));
                string want = f.Take("text").Text;
                int end = at;
                while (Read(end, 2) != 0) end += 2;
                string got = Encoding.Unicode.GetString(_block, at, end - at);
                if (got != want) throw new Failure($"text at {at} is \"{got}\", expected \"{want}\"");
                break;
            }
            case "block": _block = new byte[(int)Scenario.Number(f.Take("size"))]; break;
            case "load":
            {
                string name = f.Take("block").Text;
                _block = _blocks.TryGetValue(name, out byte[]? b) ? (byte[])b.Clone() : throw new Failure($"case {name} exported no block");
                break;
            }
            case "resize":
            {
                int size = (int)Scenario.Number(f.Take("size"));
                Array.Resize(ref _block, size);
                break;
            }
            case "poke":
            {
                string name = f.Take("field").Text;
                var (at, size) = Field(name);
                Check(at, size);
                FieldBytes(name, f.Take("value")).CopyTo(_block, at);
                break;
            }
            case "poke_u16": Write((int)Scenario.Number(f.Take("at")), 2, Scenario.Number(f.Take("value"))); break;
            case "poke_text":
            {
                int at = (int)Scenario.Number(f.Take("at"));
                byte[] data = Encoding.Unicode.GetBytes(f.Take("text").Text + "\0");
                Check(at, data.Length);
                data.CopyTo(_block, at);
                break;
            }
            default:
                if (!_live.Step(verb, f, this)) throw new Failure($"unknown verb {verb}");
                break;
        }
        if (f.Count > 0) throw new Failure($"unknown fields {string.Join(",", f.Keys)}");
    }

    // A field's bytes as the block stores them: little-endian integers, Windows-layout GUIDs.
    private byte[] FieldBytes(string name, Value v)
    {
        var (_, size) = Field(name);
        if (size == 16) return Scenario.GuidOf(v).ToByteArray();
        ulong value = Scenario.Number(v);
        var bytes = new byte[size];
        for (int i = 0; i < size; i++) bytes[i] = (byte)(value >> (8 * i));
        return bytes;
    }

    private static ulong GetNumber(Properties p, string member) => member switch
    {
        "buffer_size" => p.BufferSize,
        "minimum_buffers" => p.MinimumBuffers,
        "maximum_buffers" => p.MaximumBuffers,
        "maximum_file_size" => p.MaximumFileSize,
        "log_file_mode" => (ulong)p.LogFileMode,
        "flush_timer" => p.FlushTimer,
        "enable_flags" => (ulong)p.EnableFlags,
        "clock_type" => (ulong)p.ClockType,
        "flush_threshold" => unchecked((ulong)(long)p.FlushThreshold),
        "number_of_buffers" => p.NumberOfBuffers,
        "free_buffers" => p.FreeBuffers,
        "events_lost" => p.EventsLost,
        "buffers_written" => p.BuffersWritten,
        "log_buffers_lost" => p.LogBuffersLost,
        "real_time_buffers_lost" => p.RealTimeBuffersLost,
        "logger_thread_id" => p.LoggerThreadId,
        "historical_context" => p.HistoricalContext,
        _ => throw new Failure($"unknown member {member}"),
    };
}

internal static class DictionaryExtensions
{
    public static Value Take(this Dictionary<string, Value> fields, string key) =>
        fields.Remove(key, out Value v) ? v : throw new Failure($"missing field {key}");
}

internal static class Program
{
    private static int Main(string[] argv)
    {
        string path = argv.Length > 0 ? argv[0] : "scenario.txt";
        Directory.CreateDirectory(Placeholders.Tmp);
        var runner = new Runner();
        int cases = 0, failed = 0, lineNumber = 0;
        bool caseFailed = false;
        void Finish()
        {
            if (runner.Case.Length == 0) return;
            cases++;
            if (caseFailed) failed++;
            else Console.WriteLine($"ok {runner.Case}");
        }
        foreach (string line in File.ReadLines(path, Encoding.UTF8))
        {
            lineNumber++;
            try
            {
                var tokens = Scenario.Tokenize(line);
                if (tokens.Count == 0) continue;
                string verb = tokens[0].Value.Text;
                var args = tokens.Skip(1).Where(t => t.Key.Length == 0).Select(t => t.Value).ToList();
                var fields = new Dictionary<string, Value>();
                foreach (var (key, value) in tokens.Skip(1).Where(t => t.Key.Length > 0))
                    fields[key] = value;
                if (verb == "case")
                {
                    Finish();
                    runner.Case = args.Count > 0 ? args[0].Text : throw new Failure("case needs a name");
                    caseFailed = false;
                }
                else if (caseFailed)
                    continue;
                else if (args.Count > 0)
                    throw new Failure($"unexpected words {string.Join(" ", args.Select(a => a.Text))}");
                runner.Step(verb, fields);
            }
            catch (Failure e)
            {
                Console.WriteLine($"FAIL {(runner.Case.Length > 0 ? runner.Case : "(setup)")} line {lineNumber}: {e.Message}");
                if (runner.Case.Length == 0) return 1;
                caseFailed = true;
            }
        }
        Finish();
        runner.Reset();
        try { Directory.Delete(Placeholders.Tmp, recursive: true); } catch (IOException) { }
        Console.WriteLine($"{cases - failed} cases passed" + (failed > 0 ? $", {failed} FAILED" : ""));
        return failed > 0 || cases == 0 ? 1 : 0;
    }
}
