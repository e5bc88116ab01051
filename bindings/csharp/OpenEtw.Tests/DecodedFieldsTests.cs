using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using Xunit;

namespace OpenEtw.Tests
{
    /// <summary>
    /// Decoded fields: the shared Windows samples (values checked by hand in the C++ tests,
    /// tests/decode/) and a trace this binding writes itself.
    /// </summary>
    public class DecodedFieldsTests
    {
        private static string Sample(string name)
        {
            string? dir = Environment.GetEnvironmentVariable("OPENETW_SAMPLES_DIR");
            if (string.IsNullOrEmpty(dir))
            {
                // bindings/csharp/OpenEtw.Tests/<source file> -> the repository's sibling "shared".
                string here = Path.GetDirectoryName(SourceFile())!;
                dir = Path.GetFullPath(Path.Combine(here, "..", "..", "..", "..", "shared", "etl-samples"));
            }
            return Path.Combine(dir, name);
        }

        private static string SourceFile([System.Runtime.CompilerServices.CallerFilePath] string path = "") => path;

        /// <summary>Every record of a sample that decodes from <paramref name="source"/>, in file order.</summary>
        private static List<DecodedEvent> Decoded(string name, DecodeSource source)
        {
            var events = new List<DecodedEvent>();
            using var consumer = Consumer.Open(Sample(name), new ConsumerOptions
            {
                Order = ConsumerOrder.File,
                OnRecord = r =>
                {
                    DecodedEvent? e = r.Decode();
                    if (e != null && e.Source == source)
                        events.Add(e);
                    return true;
                },
            });
            Assert.True(consumer.Process());
            return events;
        }

        [Fact]
        public void LxCoreTraceLoggingFieldsAreDotNetTypes()
        {
            var events = Decoded("etlparser_lxcore_kernel.etl", DecodeSource.TraceLogging);
            Assert.Equal(2, events.Count);
            DecodedEvent e = events[0];
            Assert.Equal("BreakPoint", e.EventName);
            Assert.Equal("Microsoft.Windows.Subsystem.LxCore", e.ProviderName);
            Assert.Equal(new[] { "ErrorLevel", "instanceId", "LxPid", "LxTid", "LxNs", "ExecutablePath", "Function", "Line", "Message" },
                         e.PayloadNames);
            Assert.Equal((byte)2, e.PayloadByName("ErrorLevel"));
            Assert.Equal(Guid.Empty, e.PayloadByName("instanceId"));
            Assert.Equal(-1, e.PayloadByName("LxPid"));
            Assert.Equal("LxpInstanceStart", e.PayloadByName("Function"));
            Assert.Equal(2659u, e.PayloadByName("Line"));
            Assert.Equal("[0xc0000034] LxpInstanceInitialize\n", e.Fields["Message"]);
            Assert.Equal("{00000000-0000-0000-0000-000000000000}", e.PayloadString("instanceId"));
            Assert.Equal(10528u, events[1]["Line"]);
        }

        [Fact]
        public void AbsentNamesAreNullOrKeyNotFound()
        {
            DecodedEvent e = Decoded("etlparser_lxcore_kernel.etl", DecodeSource.TraceLogging)[0];
            Assert.Null(e.PayloadByName("Nope"));
            Assert.Null(e.PayloadString("Nope"));
            Assert.False(e.Fields.ContainsKey("Nope"));
            var error = Assert.Throws<KeyNotFoundException>(() => e["Nope"]);
            Assert.Equal("event 'BreakPoint' has no field 'Nope'", error.Message);
            Assert.IsNotType<long>(e.PayloadByName("Line")); // a UINT32 stays a uint
        }

        [Fact]
        public void KernelHeaderAndStructsAndCharacterArrays()
        {
            DecodedEvent h = Assert.Single(Decoded("etlparser_lxcore_kernel.etl", DecodeSource.Kernel));
            Assert.Equal("EventTrace/Header", h.EventName);
            Assert.Equal(8192u, h.PayloadByName("BufferSize"));
            Assert.Equal(6u, h.PayloadByName("NumberOfProcessors"));
            Assert.Equal("lxcore_kernel", h.PayloadByName("SessionNameString"));
            Assert.Equal("0x501000A", h.PayloadString("Version"));

            DecodedEvent s = Assert.Single(Decoded("pv_SelfDescribingSingleEvent.etl", DecodeSource.TraceLogging));
            Assert.Equal(("TestEvent", "MySource"), (s.EventName, s.ProviderName));
            var a = Assert.IsAssignableFrom<IReadOnlyDictionary<string, object>>(s.PayloadByName("a"));
            Assert.Equal("Hello", a["b"]);
            Assert.Equal("World!", a["c"]);

            var amsi = Decoded("etlparser_AMSITrace.etl", DecodeSource.TraceLogging);
            Assert.Equal(19, amsi.Count);
            Assert.Equal("$global:?", amsi[1].PayloadByName("Raw Script"));
            Assert.Equal(4, amsi.Count(e => (string)e["Engine"] == "VBScript"));
        }

        private static readonly Guid FileIo = new("90cbdc39-4a3e-11d1-84f4-0000f80464e3");

        [Fact]
        public void ATraceThisBindingWritesDecodesInTheEventCallback()
        {
            using var scratch = new Scratch();
            string path = scratch.File("fileio.etl");
            var guid = Guid.NewGuid();
            using (var props = Helpers.FileProperties(Scratch.SessionName("Decode"), path))
            using (var provider = new Provider(guid))
            using (var session = Session.Start(props, Helpers.Lossless))
            {
                session.EnableProvider(guid);
                byte[] name = Encoding.Unicode.GetBytes("\\Device\\x.txt\0");
                provider.Write(FileIo, 0, EtwLevel.Information, 2, BitConverter.GetBytes(0x1234UL).Concat(name).ToArray());
                provider.Write(FileIo, 0, EtwLevel.Information, 2, new byte[] { 1, 2, 3, 4 }); // FileObject needs 8
                provider.Write(FileIo, 99, EtwLevel.Information, 2, new byte[] { 1 });        // no such type
                session.Stop();
            }
            var seen = new List<object?>();
            string? eventName = null, formatted = null;
            using (var consumer = Consumer.Open(path, new ConsumerOptions
            {
                OnEvent = e =>
                {
                    try
                    {
                        seen.Add(e.Decode());
                        eventName ??= e.EventName;
                        formatted ??= e.PayloadString("FileObject");
                    }
                    catch (OpenEtwException error) { seen.Add(error); }
                    return true;
                },
            }))
                Assert.True(consumer.Process());
            Assert.Equal(3, seen.Count);
            var named = Assert.IsType<DecodedEvent>(seen[0]);
            Assert.Equal((DecodeSource.Kernel, "FileIo/Name"), (named.Source, named.EventName));
            Assert.Equal(0x1234UL, named.PayloadByName("FileObject"));
            Assert.Equal("\\Device\\x.txt", named.PayloadByName("FileName"));
            Assert.Equal(("FileIo/Name", "0x1234"), (eventName, formatted));
            var error = Assert.IsType<OpenEtwException>(seen[1]);
            Assert.Equal(Status.InvalidData, error.Status);
            Assert.Contains("FileObject", error.Message);
            Assert.Null(seen[2]);
        }

        [Fact]
        public void ValuesConvertByTdhType()
        {
            static object C(ushort inType, ushort outType, byte[] data) =>
                DecodedEvent.Convert(new DecodedProperty("F", "text", -1, 0, 0, inType, outType), data);
            Assert.Equal(true, C(4, 13, new byte[] { 1 }));
            Assert.Equal((short)-2, C(5, 0, BitConverter.GetBytes((short)-2)));
            Assert.Equal(1.5, C(12, 0, BitConverter.GetBytes(1.5)));
            Assert.Equal(new DateTime(2020, 7, 14, 12, 4, 43, DateTimeKind.Utc).AddTicks(2816874),
                         C(17, 0, BitConverter.GetBytes(132392018832816874L)));
            var st = new ushort[] { 2024, 2, 4, 29, 23, 59, 58, 123 }.SelectMany(BitConverter.GetBytes).ToArray();
            Assert.Equal(new DateTime(2024, 2, 29, 23, 59, 58, 123), C(18, 0, st));
            Assert.Equal("text", C(18, 0, new byte[16])); // not a date
            Assert.Equal("text", C(8, 23, new byte[] { 10, 0, 0, 1 })); // IPv4
            Assert.Equal(new byte[] { 9, 8 }, C(14, 0, new byte[] { 9, 8 }));
        }
    }
}
