using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.InteropServices;
using OpenEtw.Interop;
using Xunit;

namespace OpenEtw.Tests
{
    /// <summary>TraceLogging events written from C# (Provider.Write with an object) and read back.</summary>
    public class TraceLoggingTests
    {
        /// <summary>A plain class: its public properties are the fields, in declaration order.</summary>
        public sealed class Shipment
        {
            public sbyte I8 { get; set; } = -8;
            public byte U8 { get; set; } = 200;
            public short I16 { get; set; } = -16000;
            public ushort U16 { get; set; } = 60000;
            public int I32 { get; set; } = -2_000_000_000;
            public uint U32 { get; set; } = 4_000_000_000;
            public long I64 { get; set; } = long.MinValue;
            public ulong U64 { get; set; } = ulong.MaxValue;
            public float F32 { get; set; } = 1.5f;
            public double F64 { get; set; } = -2.25;
            public bool Flag { get; set; } = true;
            public char Letter { get; set; } = 'Z';
            public string Text { get; set; } = "Grüße, Fabrikam";
            public string? Missing { get; set; }
            public Guid Id { get; set; } = new("12345678-9abc-def0-1122-334455667788");
            public DateTime When { get; set; } = new(2024, 5, 6, 7, 8, 9, DateTimeKind.Utc);
            public byte[] Blob { get; set; } = { 1, 2, 3 };
            public int[] Numbers { get; set; } = { 1, -2, 3 };
            public double[] Ratios { get; set; } = { 0.5, 0.25 };
            public bool[] Bits { get; set; } = { true, false };
            public DayOfWeek Day { get; set; } = DayOfWeek.Friday;
            public TimeSpan Took { get; set; } = TimeSpan.FromMilliseconds(3);
            public List<long> Longs { get; set; } = new() { 5, -6 };
            public Guid[] Ids { get; set; } = { new("00000000-0000-0000-0000-000000000001") };
            public string this[int i] => "indexers are not fields";
            [System.Diagnostics.Tracing.EventIgnore] public string Ignored { get; set; } = "not a field";
            public int WriteOnly { private get; set; }
        }

        private sealed record Read(string Name, string Provider, EtwLevel Level, byte Opcode, ulong Keyword, byte Channel,
                                   DecodedEvent Decoded);

        /// <summary>Writes with a provider named <paramref name="name"/> into a file; reads back every decoded event.</summary>
        private static (List<Read> events, string path) WriteAndRead(Scratch scratch, string name, Action<Provider> write,
                                                                     EtwLevel sessionLevel = EtwLevel.None, ulong keywords = 0)
        {
            string path = scratch.File("tl.etl");
            using (var props = Helpers.FileProperties(Scratch.SessionName("TraceLogging"), path))
            using (var provider = new Provider(name))
            using (var session = Session.Start(props, Helpers.Lossless))
            {
                session.EnableProvider(provider.Guid, sessionLevel, keywords);
                write(provider);
                session.Stop();
            }
            var events = new List<Read>();
            using (var consumer = Consumer.Open(path, new ConsumerOptions
            {
                OnEventRecord = e =>
                {
                    var d = e.Decode();
                    Assert.NotNull(d);
                    events.Add(new Read(d!.EventName, d.ProviderName, e.Level, e.Opcode, e.Keyword, e.Channel, d));
                    return true;
                },
            }))
                Assert.True(consumer.Process());
            return (events, path);
        }

        private static string EtwDump(string path)
        {
            var attr = typeof(TraceLoggingTests).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>()
                .First(a => a.Key == "OpenEtwBuildDir");
            string etwdump = Path.Combine(Path.GetFullPath(attr.Value!), "tools", "etwdump", "etwdump");
            Assert.True(File.Exists(etwdump), $"etwdump not built: {etwdump}");
            var psi = new ProcessStartInfo(etwdump) { RedirectStandardOutput = true, RedirectStandardError = true };
            foreach (string a in new[] { "--format", "text", path })
                psi.ArgumentList.Add(a);
            using var p = Process.Start(psi)!;
            string output = p.StandardOutput.ReadToEnd();
            string error = p.StandardError.ReadToEnd();
            p.WaitForExit();
            Assert.True(p.ExitCode == 0, $"etwdump exited {p.ExitCode}: {error}");
            return output;
        }

        [Fact]
        public void AnAnonymousTypeDecodesWithNamesTypesAndValues()
        {
            using var scratch = new Scratch();
            string name = $"OpenEtw.Tests.Orders{Environment.ProcessId}";
            var (events, path) = WriteAndRead(scratch, name, p =>
            {
                p.Write("OrderShipped", new { OrderId = 4711, Customer = "Fabrikam" });
                p.Write("OrderShipped", new { OrderId = 4712, Customer = "Contoso" });
            });
            Assert.Equal(2, events.Count);
            var e = events[0];
            Assert.Equal(("OrderShipped", name), (e.Name, e.Provider));
            Assert.Equal(DecodeSource.TraceLogging, e.Decoded.Source);
            Assert.Equal(new[] { "OrderId", "Customer" }, e.Decoded.PayloadNames);
            Assert.Equal(4711, e.Decoded["OrderId"]);
            Assert.Equal("Fabrikam", e.Decoded["Customer"]);
            Assert.Equal("Contoso", events[1].Decoded["Customer"]);
            // TraceLogging's defaults: verbose, channel 11.
            Assert.Equal((EtwLevel.Verbose, (byte)11, (byte)0, 0UL), (e.Level, e.Channel, e.Opcode, e.Keyword));

            string dump = EtwDump(path);
            Assert.Contains("OrderShipped", dump);
            Assert.Contains(name, dump);
            foreach (string s in new[] { "OrderId", "4711", "Customer", "Fabrikam", "4712", "Contoso" })
                Assert.Contains(s, dump);
        }

        [Fact]
        public void EveryMappedTypeKeepsItsTypeAndValue()
        {
            using var scratch = new Scratch();
            var value = new Shipment();
            var (events, path) = WriteAndRead(scratch, $"OpenEtw.Tests.Types{Environment.ProcessId}",
                                              p => p.Write("AllTypes", value));
            var d = Assert.Single(events).Decoded;
            Assert.Equal(typeof(Shipment).GetProperties().Where(p => p.GetIndexParameters().Length == 0)
                             .Select(p => p.Name).Except(new[] { "Ignored", "WriteOnly" }),
                         d.PayloadNames);
            Assert.Equal((sbyte)-8, d["I8"]);
            Assert.Equal((byte)200, d["U8"]);
            Assert.Equal((short)-16000, d["I16"]);
            Assert.Equal((ushort)60000, d["U16"]);
            Assert.Equal(-2_000_000_000, d["I32"]);
            Assert.Equal(4_000_000_000u, d["U32"]);
            Assert.Equal(long.MinValue, d["I64"]);
            Assert.Equal(ulong.MaxValue, d["U64"]);
            Assert.Equal(1.5f, d["F32"]);
            Assert.Equal(-2.25, d["F64"]);
            Assert.Equal(true, d["Flag"]);
            Assert.Equal("Z", d["Letter"]);
            Assert.Equal("Grüße, Fabrikam", d["Text"]);
            Assert.Equal("", d["Missing"]);
            Assert.Equal(value.Id, d["Id"]);
            Assert.Equal(value.When, d["When"]);
            Assert.Equal(new byte[] { 1, 2, 3 }, d["Blob"]);
            Assert.Equal(new object[] { 1, -2, 3 }, d["Numbers"]);
            Assert.Equal(new object[] { 0.5, 0.25 }, d["Ratios"]);
            Assert.Equal(new object[] { true, false }, d["Bits"]);
            Assert.Equal((int)DayOfWeek.Friday, d["Day"]);
            Assert.Equal(TimeSpan.FromMilliseconds(3).Ticks, d["Took"]);
            Assert.Equal(new object[] { 5L, -6L }, d["Longs"]);
            Assert.Equal(new object[] { value.Ids[0] }, d["Ids"]);

            // The in/out types EventSource gives them (TDH's numbering in the decoded properties).
            var types = d.Properties.Where(p => p.Parent < 0).ToDictionary(p => p.Name, p => (p.InType, p.OutType));
            Assert.Equal(22, types["Text"].InType);   // counted UTF-16
            Assert.Equal(4, types["Flag"].InType);    // Boolean8: a UINT8 ...
            Assert.Equal(13, types["Flag"].OutType);  // ... shown as a boolean
            Assert.Equal(14, types["Blob"].InType);   // binary
            Assert.Equal(17, types["When"].InType);   // FILETIME
            Assert.Equal(15, types["Id"].InType);     // GUID

            string dump = EtwDump(path);
            foreach (string s in new[] { "AllTypes", "U64", "18446744073709551615", "Text", "Grüße, Fabrikam", "Id",
                                         "12345678-9abc-def0-1122-334455667788", "Numbers", "I16", "-16000" })
                Assert.Contains(s, dump, StringComparison.OrdinalIgnoreCase);
        }

        private sealed class Counted
        {
            public int Reads;
            public int N => ++Reads;
        }

        [Fact]
        public void OptionsSetLevelKeywordsOpcodeAndSessionsFilterByThem()
        {
            using var scratch = new Scratch();
            var counted = new Counted();
            var (events, _) = WriteAndRead(scratch, $"OpenEtw.Tests.Options{Environment.ProcessId}", p =>
            {
                // No session takes these: the object is not read.
                p.Write("Filtered", new TraceLoggingOptions { Level = EtwLevel.Verbose, Keywords = 0x10 }, counted);
                p.Write("Filtered", new TraceLoggingOptions { Level = EtwLevel.Error, Keywords = 0x20 }, counted);
                p.Write("Taken", new TraceLoggingOptions { Level = EtwLevel.Warning, Keywords = 0x10, Opcode = 1 }, new { N = 1 });
                p.Write("TooVerbose", new TraceLoggingOptions { Level = EtwLevel.Verbose, Keywords = 0x10 }, new { N = 2 });
                p.Write("OtherKeyword", new TraceLoggingOptions { Level = EtwLevel.Error, Keywords = 0x20 }, new { N = 3 });
                p.Write("NoFields", new TraceLoggingOptions { Level = EtwLevel.Error, Keywords = 0x30 }, (object?)null);
            }, EtwLevel.Information, 0x10);
            Assert.Equal(new[] { "Taken", "NoFields" }, events.Select(e => e.Name));
            Assert.Equal((EtwLevel.Warning, (byte)1, 0x10UL), (events[0].Level, events[0].Opcode, events[0].Keyword));
            Assert.Equal(1, events[0].Decoded["N"]);
            Assert.Empty(events[1].Decoded.PayloadNames);
            Assert.Equal(0, counted.Reads);
        }

        private sealed class Reflected
        {
            public int A { get; set; }
        }

        [Fact]
        public void ATypeIsReflectedOnce()
        {
            using var scratch = new Scratch();
            var (events, _) = WriteAndRead(scratch, $"OpenEtw.Tests.Cache{Environment.ProcessId}", p =>
            {
                p.Write("First", new Reflected { A = 1 });
                p.Write("Second", new Reflected { A = 2 });
                p.Write("Third", (object)new Reflected { A = 3 }); // typed as object: the runtime type's layout
            });
            Assert.Equal(new object[] { 1, 2, 3 }, events.Select(e => e.Decoded["A"]));
            Assert.Equal(1, TraceLoggingLayout.Builds(typeof(Reflected)));
        }

        private sealed class Unmapped
        {
            public int Fine { get; set; }
            public Dictionary<string, int> Items { get; set; } = new();
        }

        private sealed class LongText
        {
            public string Text { get; set; } = "";
        }

        [Fact]
        public void BadValuesGiveClearStatuses()
        {
            using var scratch = new Scratch();
            string path = scratch.File("bad.etl");
            using var props = Helpers.FileProperties(Scratch.SessionName("TraceLoggingBad"), path);
            using var provider = new Provider($"OpenEtw.Tests.Bad{Environment.ProcessId}");
            // Disabled: nothing is looked at, as in C.
            provider.Write("Unmapped", new Unmapped());
            Assert.Equal(0, TraceLoggingLayout.Builds(typeof(Unmapped)));

            using var session = Session.Start(props, Helpers.Lossless);
            session.EnableProvider(provider.Guid);
            var e = Assert.Throws<OpenEtwException>(() => provider.Write("Unmapped", new Unmapped()));
            Assert.Equal(Status.InvalidParameter, e.Status);
            Assert.Contains("'Items'", e.Message);
            Assert.Equal(Status.InvalidParameter, provider.TryWrite("Unmapped", new TraceLoggingOptions(), new Unmapped()));
            Assert.Equal(1, TraceLoggingLayout.Builds(typeof(Unmapped))); // the failure is cached too

            // 32768 UTF-16 units: 65536 bytes, one more than a counted string holds (the library's check).
            e = Assert.Throws<OpenEtwException>(() => provider.Write("Long", new LongText { Text = new string('x', 32768) }));
            Assert.Equal(Status.InvalidParameter, e.Status);
            Assert.Contains("Text", e.Message);
            // More than an event can hold: this layer's check, naming the field.
            e = Assert.Throws<OpenEtwException>(() => provider.Write("Huge", new { A = new string('x', 20000), B = new string('y', 20000) }));
            Assert.Equal(Status.ArithmeticOverflow, e.Status);
            Assert.Contains("'B'", e.Message);

            e = Assert.Throws<OpenEtwException>(() => provider.Write(null!, new { A = 1 }));
            Assert.Equal(Status.InvalidParameter, e.Status);
            e = Assert.Throws<OpenEtwException>(() => provider.Write("Bad\0Name", new { A = 1 }));
            Assert.Equal(Status.InvalidParameter, e.Status);
            Assert.Contains("NUL", e.Message);
            e = Assert.Throws<OpenEtwException>(() => provider.SetName("Again"));
            Assert.Equal(Status.AlreadyExists, e.Status);
        }

        public readonly record struct Point(int X, int Y);

        [Fact]
        public void AWriteAfterTheFirstAllocatesNothing()
        {
            using var scratch = new Scratch();
            long allocated = -1;
            var (events, _) = WriteAndRead(scratch, $"OpenEtw.Tests.Alloc{Environment.ProcessId}", p =>
            {
                var order = new { OrderId = 4711, Customer = "Fabrikam", Items = new[] { 1, 2, 3 }, When = DateTime.UnixEpoch };
                var options = new TraceLoggingOptions { Level = EtwLevel.Information, Keywords = 1 };
                for (int i = 0; i < 3; i++) // the layout, the thread's buffer, the JIT's first calls
                    p.Write("Warm", options, order);
                long before = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < 1000; i++)
                    p.Write("Steady", options, order);
                allocated = GC.GetAllocatedBytesForCurrentThread() - before;
                p.Write("Struct", new Point(3, -4)); // a struct: boxed once, its properties are the fields
            });
            Assert.Equal(0, allocated);
            Assert.Equal(1000, events.Count(e => e.Name == "Steady"));
            var point = events.Single(e => e.Name == "Struct").Decoded;
            Assert.Equal((3, -4), ((int)point["X"], (int)point["Y"]));
        }

        [Fact]
        public void ThreadsWriteAtOnceEachWithItsOwnValues()
        {
            using var scratch = new Scratch();
            const int Threads = 4, PerThread = 500;
            var (events, _) = WriteAndRead(scratch, $"OpenEtw.Tests.Threads{Environment.ProcessId}", p =>
            {
                var threads = Enumerable.Range(0, Threads).Select(t => new System.Threading.Thread(() =>
                {
                    for (int i = 0; i < PerThread; i++)
                        p.Write("Work", new { Thread = t, Index = i, Text = $"t{t}-{i}", Items = new[] { t, i } });
                })).ToList();
                threads.ForEach(t => t.Start());
                threads.ForEach(t => t.Join());
            });
            Assert.Equal(Threads * PerThread, events.Count);
            foreach (var e in events)
            {
                int t = (int)e.Decoded["Thread"], i = (int)e.Decoded["Index"];
                Assert.Equal($"t{t}-{i}", e.Decoded["Text"]);
                Assert.Equal(new object[] { t, i }, e.Decoded["Items"]);
            }
            Assert.Equal(Threads * PerThread, events.Select(e => ((int)e.Decoded["Thread"], (int)e.Decoded["Index"])).Distinct().Count());
        }

        /// <summary>A property whose getter writes an event itself.</summary>
        private sealed class Nested
        {
            public Provider? Provider;
            public string First { get; set; } = "written before the getter runs";
            public string Outer => Provider!.EnabledHint ? Inner() : "";
            public int After { get; set; } = 7;

            private string Inner()
            {
                Provider!.Write("Inner", new { Value = "inner value" });
                return "outer value";
            }
        }

        [Fact]
        public void AGetterThatWritesKeepsTheOuterEventsValues()
        {
            using var scratch = new Scratch();
            var (events, _) = WriteAndRead(scratch, $"OpenEtw.Tests.Nested{Environment.ProcessId}",
                                           p => p.Write("Outer", new Nested { Provider = p }));
            Assert.Equal(new[] { "Inner", "Outer" }, events.Select(e => e.Name));
            Assert.Equal("inner value", events[0].Decoded["Value"]);
            var outer = events[1].Decoded;
            Assert.Equal(("written before the getter runs", "outer value", 7),
                         ((string)outer["First"], (string)outer["Outer"], (int)outer["After"]));
        }

        [Fact]
        public void NameDerivedGuidIsEventSources()
        {
            Assert.Equal(new Guid("ce5fa4ea-ab00-5402-8b76-9f76ac858fb5"), Provider.GuidFromName("MyCompany.MyComponent"));
            using var p = new Provider("MyCompany.MyComponent");
            Assert.Equal((new Guid("ce5fa4ea-ab00-5402-8b76-9f76ac858fb5"), "MyCompany.MyComponent"), (p.Guid, p.Name));
            Assert.Equal(Status.InvalidParameter, Assert.Throws<OpenEtwException>(() => Provider.GuidFromName(null!)).Status);
        }

        [Fact]
        public void FieldStructHasTheCLayout()
        {
            Assert.Equal(24, Marshal.SizeOf<TlFieldNative>());
            Assert.Equal(16, (int)Marshal.OffsetOf<TlFieldNative>(nameof(TlFieldNative.Size)));
            Assert.Equal(20, (int)Marshal.OffsetOf<TlFieldNative>(nameof(TlFieldNative.InType)));
        }
    }
}
