using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading;
using Xunit;

namespace OpenEtw.Tests
{
    /// <summary>
    /// Schema sources (manifests, provider binaries) and the EVENT_RECORD callback on the shared
    /// Windows samples. The HttpService values were read by hand from the payload bytes (the C++
    /// test tests/decode/manifest_test.cpp checks the same ones); header fields are compared with
    /// the golden record lists.
    /// </summary>
    public class SchemasTests
    {
        private static string Here([System.Runtime.CompilerServices.CallerFilePath] string path = "") => Path.GetDirectoryName(path)!;

        private static string Sample(string name)
        {
            string? dir = Environment.GetEnvironmentVariable("OPENETW_SAMPLES_DIR");
            if (string.IsNullOrEmpty(dir))
                dir = Path.GetFullPath(Path.Combine(Here(), "..", "..", "..", "..", "shared", "etl-samples"));
            return Path.Combine(dir, name);
        }

        private static readonly string HttpManifest =
            Path.GetFullPath(Path.Combine(Here(), "..", "..", "..", "tests", "decode", "manifests", "Microsoft-Windows-HttpService.xml"));

        private static readonly Guid WebDeploy = new("ab77e98e-0138-4c77-8bfb-decd33edfe3c");

        /// <summary>The .NET SDK's Web Deploy tracing DLL (tests/decode/provider_binaries.hpp), or null.</summary>
        private static string? WebDeployDll()
        {
            foreach (string? root in new[] { Environment.GetEnvironmentVariable("DOTNET_ROOT"), "/usr/share/dotnet", "/usr/lib/dotnet", "/opt/dotnet" })
            {
                if (string.IsNullOrEmpty(root) || !Directory.Exists(Path.Combine(root, "sdk")))
                    continue;
                foreach (string sdk in Directory.GetDirectories(Path.Combine(root, "sdk")))
                {
                    string dll = Path.Combine(sdk, "Sdks", "Microsoft.NET.Sdk.Publish", "tools", "net472", "Microsoft.Web.Deployment.Tracing.dll");
                    if (File.Exists(dll))
                        return dll;
                }
            }
            return null;
        }

        private sealed record Seen(ushort Id, string Payload, DecodedEvent? Decoded);

        /// <summary>The event records of a sample, decoded in the callback with the consumer's schemas.</summary>
        private static List<Seen> Events(string name, Schemas? schemas)
        {
            var seen = new List<Seen>();
            using var consumer = Consumer.Open(Sample(name), new ConsumerOptions
            {
                Order = ConsumerOrder.File,
                Schemas = schemas,
                OnRecord = r =>
                {
                    if (r.Kind == RecordKind.Event)
                        seen.Add(new Seen(r.EventId, Convert.ToHexString(r.Payload).ToLowerInvariant(), r.Decode()));
                    return true;
                },
            });
            Assert.True(consumer.Process());
            return seen;
        }

        private static DecodedEvent First(List<Seen> events, ushort id, string hex) =>
            events.First(e => e.Id == id && e.Payload.StartsWith(hex)).Decoded!;

        [Fact]
        public void HttpServerSampleDecodesWithItsManifest()
        {
            using var schemas = new Schemas().LoadManifest(HttpManifest);
            var events = Events("tx_HTTP_Server.etl", schemas);
            Assert.Equal(2041, events.Count); // golden: event:2041
            Assert.All(events, e => Assert.Equal(DecodeSource.Manifest, e.Decoded?.Source));
            Assert.All(events, e => Assert.Equal("Microsoft-Windows-HttpService", e.Decoded!.ProviderName));
            Assert.Equal(291, events.Count(e => e.Id == 1));
            Assert.Equal(289, events.Count(e => e.Id == 12));
            DecodedEvent parse = First(events, 2, "30457c0380faffff04000000");
            Assert.Equal(("HTTPRequestTraceTaskParse", "HTTPRequestTraceTask", "Parse", "Information", "HTTP_KEYWORD_REQUEST"),
                         (parse.EventName, parse.TaskName, parse.OpcodeName, parse.LevelName, parse.KeywordsName));
            Assert.Equal(0xFFFFFA80037C4530UL, parse.PayloadByName("RequestObj"));
            Assert.Equal("0xFFFFFA80037C4530", parse.PayloadString("RequestObj"));
            Assert.Equal(4u, parse.PayloadByName("HttpVerb"));
            Assert.Equal("http://georgis2:80/windir.txt", parse["Url"]);
            DecodedEvent resp = First(events, 4, "0d060080000000ff0c060060000000ffc80047455400a5000000");
            Assert.Equal("HTTP_KEYWORD_REQUEST, HTTP_KEYWORD_RESPONSE", resp.KeywordsName);
            Assert.Equal(18374686481819108877UL, resp["RequestId"]);
            Assert.Equal("GET", resp["Verb"]);
            Assert.Equal("200", resp.PayloadString("StatusCode"));
            Assert.Equal("165", resp.PayloadString("HeaderLength"));
            DecodedEvent write = First(events, 51, "00000000280e0080ffffffff");
            Assert.Equal("CacheMiss", write["ResType"]);
        }

        [Fact]
        public void WithoutTheManifestNothingDecodes()
        {
            var events = Events("tx_HTTP_Server.etl", new Schemas());
            Assert.Equal(2041, events.Count);
            Assert.All(events, e => Assert.Null(e.Decoded));
        }

        [Fact]
        public void EveryThreadDecodesWithEverySourceLoadedSoFar()
        {
            using var schemas = new Schemas();
            string? Other()
            {
                string? name = null;
                var t = new Thread(() => name = Events("tx_HTTP_Server.etl", schemas)[0].Decoded?.EventName);
                t.Start();
                t.Join();
                return name;
            }
            Assert.Null(Other());
            Assert.Null(Events("tx_HTTP_Server.etl", schemas)[0].Decoded); // this thread's decoder now exists
            schemas.LoadManifestText(File.ReadAllBytes(HttpManifest));
            Assert.Equal("HTTPConnectionTraceTaskConnConnect", Other());
            Assert.Equal("HTTPConnectionTraceTaskConnConnect", Events("tx_HTTP_Server.etl", schemas)[0].Decoded?.EventName);
            Assert.Equal(1, schemas.SourceCount);
        }

        /// <summary>Decodes a Web Deploy event built here, as the C++ test does.</summary>
        private static DecodedEvent? DecodeWebDeploy(Schemas schemas, ushort id, byte version, byte[] payload) =>
            schemas.Decode(WebDeploy, id, version, payload);

        private static byte[] Utf16(params string[] texts) => texts.SelectMany(t => Encoding.Unicode.GetBytes(t + "\0")).ToArray();

        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void WebDeployBinaryDecodesWithItsMessageTableNames(bool fromImage)
        {
            string? dll = WebDeployDll();
            if (dll == null)
                return; // not installed here (the C++ test reports it)
            using var schemas = new Schemas();
            if (fromImage)
                schemas.LoadBinaryImage(File.ReadAllBytes(dll));
            else
                schemas.LoadBinary(dll);
            // Event 27000 version 1: ErrorCode (win:Int32), Message, StackTrace; level win:Error.
            DecodedEvent e = DecodeWebDeploy(schemas, 27000, 1, BitConverter.GetBytes(-5).Concat(Utf16("boom", "at Main()")).ToArray())!;
            Assert.Equal(("Microsoft-Windows-WebDeploy", "Error", "", ""), (e.ProviderName, e.LevelName, e.TaskName, e.OpcodeName));
            Assert.Equal(new[] { "ErrorCode", "Message", "StackTrace" }, e.PayloadNames);
            Assert.Equal(-5, e["ErrorCode"]);
            Assert.Equal("at Main()", e["StackTrace"]);
            DecodedEvent g = DecodeWebDeploy(schemas, 27004, 0, Utf16("m", "u", "s"))!;
            Assert.Equal("Warning", g.LevelName);
            Assert.Equal("s", g["SiteName"]);
            Assert.Null(DecodeWebDeploy(schemas, 27000, 0, Array.Empty<byte>())); // the version is part of the key
            Assert.Null(DecodeWebDeploy(new Schemas(), 27004, 0, Utf16("m", "u", "s")));
        }

        [Fact]
        public void BadSourcesThrowTheStatusAndMessageAndKeepWhatWasLoaded()
        {
            string dir = Path.Combine(Path.GetTempPath(), $"openetw-schemas-{Environment.ProcessId}");
            Directory.CreateDirectory(dir);
            try
            {
                using var schemas = new Schemas().LoadManifest(HttpManifest);
                var error = Assert.Throws<OpenEtwException>(() => schemas.LoadManifest(Path.Combine(dir, "missing.man")));
                Assert.Equal(Status.FileNotFound, error.Status);
                Assert.Contains("missing.man", error.Message);
                string badXml = Path.Combine(dir, "bad.man");
                File.WriteAllText(badXml, "<instrumentationManifest>\n<events><provider name='x'>\n</events>");
                error = Assert.Throws<OpenEtwException>(() => schemas.LoadManifest(badXml));
                Assert.Equal(Status.InvalidData, error.Status);
                Assert.Contains("bad.man", error.Message);
                error = Assert.Throws<OpenEtwException>(() => schemas.LoadManifestText("<instrumentationManifest"));
                Assert.Contains("(memory)", error.Message);
                string notPe = Path.Combine(dir, "notes.dll");
                File.WriteAllText(notPe, string.Concat(Enumerable.Repeat("just some text, not an MZ image", 8)));
                error = Assert.Throws<OpenEtwException>(() => schemas.LoadBinary(notPe));
                Assert.Equal(Status.InvalidData, error.Status);
                Assert.Contains("notes.dll", error.Message);
                Assert.Equal(Status.FileNotFound, Assert.Throws<OpenEtwException>(() => schemas.LoadBinary(Path.Combine(dir, "missing.dll"))).Status);
                Assert.Equal(Status.InvalidData, Assert.Throws<OpenEtwException>(() => schemas.LoadBinaryImage("MZ"u8)).Status);
                string? dll = WebDeployDll();
                if (dll != null)
                {
                    // A managed assembly of the SDK: a PE image with no WEVT_TEMPLATE resource.
                    string managed = Path.Combine(Path.GetDirectoryName(dll)!, "..", "..", "..", "..", "dotnet.dll");
                    error = Assert.Throws<OpenEtwException>(() => schemas.LoadBinary(managed));
                    Assert.Equal(Status.NotFound, error.Status);
                    Assert.Contains("WEVT_TEMPLATE", error.Message);
                }
                Assert.Equal(1, schemas.SourceCount);
                Assert.Equal("HTTPConnectionTraceTaskConnConnect", Events("tx_HTTP_Server.etl", schemas)[0].Decoded?.EventName);
            }
            finally
            {
                Directory.Delete(dir, recursive: true);
            }
        }

        // ---- EVENT_RECORD delivery ----

        private sealed record Copy(ushort Id, byte Version, byte Channel, byte Level, byte Opcode, ushort Task, ulong Keyword,
                                   ushort Flags, ushort EventProperty, uint ThreadId, uint ProcessId, long Timestamp,
                                   Guid ProviderId, Guid ActivityId, uint KernelTime, uint UserTime, string UserData,
                                   string Extended, DecodedEvent? Decoded);

        private static string Item(ExtendedItem x) => $"{x.ExtType}/{x.Linkage}/{Convert.ToHexString(x.Data)}";

        private static string Extended(TraceRecord r) =>
            string.Join(",", Items(r));

        private static List<string> Items(TraceRecord r)
        {
            var parts = new List<string>();
            for (int i = 0; i < r.ExtendedCount; i++)
                parts.Add(Item(r.GetExtendedItem(i)));
            return parts;
        }

        private static string Extended(EventRecord e)
        {
            var parts = new List<string>();
            for (int i = 0; i < e.ExtendedDataCount; i++)
                parts.Add(Item(e.GetExtendedItem(i)));
            return string.Join(",", parts);
        }

        /// <summary>The event records of a sample, and the record callback's facts of the same records.</summary>
        private static (List<Copy> Events, List<Copy> Records) EventRecords(string name, Schemas? schemas = null)
        {
            var events = new List<Copy>();
            var records = new List<Copy>();
            using var consumer = Consumer.Open(Sample(name), new ConsumerOptions
            {
                Order = ConsumerOrder.File,
                Schemas = schemas,
                OnRecord = r =>
                {
                    if (r.Kind == RecordKind.Event)
                    {
                        records.Add(new Copy(r.EventId, (byte)r.Version, r.Channel, (byte)r.Level, r.Opcode, r.Task, r.Keyword,
                            r.EventFlags, r.EventProperty, r.ThreadId, r.ProcessId, r.Timestamp, r.Guid, r.ActivityId,
                            r.KernelTime, r.UserTime, Convert.ToHexString(r.Payload), Extended(r), null));
                    }
                    return true;
                },
                OnEventRecord = e =>
                {
                    events.Add(new Copy(e.Id, e.Version, e.Channel, (byte)e.Level, e.Opcode, e.Task, e.Keyword, e.Flags,
                        e.EventProperty, e.ThreadId, e.ProcessId, e.Timestamp, e.ProviderId, e.ActivityId, e.KernelTime,
                        e.UserTime, Convert.ToHexString(e.UserData), Extended(e), e.Decode()));
                    return true;
                },
            });
            Assert.True(consumer.Process());
            return (events, records);
        }

        private static List<Copy> CheckAgainstGolden(string name, Schemas? schemas = null)
        {
            var (events, records) = EventRecords(name + ".etl", schemas);
            var golden = File.ReadLines(Sample(Path.Combine("golden", name + ".records.jsonl")))
                             .Select(l => JsonDocument.Parse(l).RootElement)
                             .Where(g => g.GetProperty("kind").GetString() == "event").ToList();
            Assert.Equal(golden.Count, events.Count);
            Assert.Equal(golden.Count, records.Count);
            for (int i = 0; i < events.Count; i++)
            {
                Copy e = events[i];
                JsonElement g = golden[i];
                Assert.Equal(g.GetProperty("event_id").GetInt32(), e.Id);
                Assert.Equal(g.GetProperty("version").GetInt32(), e.Version);
                Assert.Equal(g.GetProperty("level").GetInt32(), e.Level);
                Assert.Equal(g.GetProperty("opcode").GetInt32(), e.Opcode);
                Assert.Equal(Guid.Parse(g.GetProperty("guid").GetString()!), e.ProviderId);
                Assert.Equal(g.GetProperty("process_id").GetUInt32(), e.ProcessId);
                Assert.Equal(g.GetProperty("thread_id").GetUInt32(), e.ThreadId);
                Assert.Equal(g.GetProperty("timestamp_filetime").GetInt64(), e.Timestamp);
                Assert.Equal(records[i], e with { Decoded = null }); // every field, against the record callback's
            }
            return events;
        }

        [Fact]
        public void EventRecordsOfATraceLoggingSample()
        {
            Copy e = Assert.Single(CheckAgainstGolden("pv_SelfDescribingSingleEvent")); // its 18 classic records do not come
            Assert.Equal(3, e.Id);
            Assert.NotEqual("", e.Extended);
            Assert.Equal(("TestEvent", "MySource"), (e.Decoded!.EventName, e.Decoded.ProviderName));
            var a = (IReadOnlyDictionary<string, object>)e.Decoded["a"];
            Assert.Equal("Hello", a["b"]);
            Assert.Equal("World!", a["c"]);
        }

        [Fact]
        public void EventRecordsOfTheBondSample()
        {
            var events = CheckAgainstGolden("tx_BondEtwSample");
            Assert.NotEmpty(events);
            Assert.All(events, e => Assert.Null(e.Decoded)); // manifest-based: no manifest here
        }

        [Fact]
        public void EventRecordsOfTheHttpSampleDecodeWithTheConsumersSchemas()
        {
            using var schemas = new Schemas().LoadManifest(HttpManifest);
            var events = CheckAgainstGolden("tx_HTTP_Server", schemas);
            Assert.Equal(2041, events.Count);
            Assert.All(events, e => Assert.Equal("Microsoft-Windows-HttpService", e.Decoded?.ProviderName));
            DecodedEvent parse = events.First(e => e.Id == 2 && e.UserData.StartsWith("30457C0380FAFFFF04000000")).Decoded!;
            Assert.Equal("HTTPRequestTraceTaskParse", parse.EventName);
            Assert.Equal("http://georgis2:80/windir.txt", parse["Url"]);
        }

        [Fact]
        public void EventRecordCallbackStopsAndThrows()
        {
            int count = 0;
            using (var consumer = Consumer.Open(Sample("tx_HTTP_Server.etl"), new ConsumerOptions { OnEventRecord = e => ++count < 5 }))
                Assert.False(consumer.Process());
            Assert.Equal(5, count);
            using (var consumer = Consumer.Open(Sample("tx_HTTP_Server.etl"),
                       new ConsumerOptions { OnEventRecord = e => throw new InvalidOperationException("from OnEventRecord") }))
                Assert.Equal("from OnEventRecord", Assert.Throws<InvalidOperationException>(() => consumer.Process()).Message);
        }
    }
}
