using System;
using System.Collections.Generic;
using System.Linq;
using Xunit;

namespace OpenEtw.Tests
{
    /// <summary>TraceLogging fields built at run time (TraceLoggingFields): each in-type as its Add method names it.</summary>
    public class TraceLoggingFieldsTests
    {
        [Fact]
        public void FieldsKeepTheirOrderInTypesAndValues()
        {
            using var scratch = new Scratch();
            string name = $"OpenEtw.Tests.DynamicFields{Environment.ProcessId}";
            string path = scratch.File("dynamic.etl");
            using (var props = Helpers.FileProperties(Scratch.SessionName("DynamicFields"), path))
            using (var provider = new Provider(name))
            using (var session = Session.Start(props))
            {
                session.EnableProvider(provider.Guid, EtwLevel.Verbose);
                provider.Write("Dynamic", new TraceLoggingOptions { Level = EtwLevel.Warning, Keywords = 0x2 }, new TraceLoggingFields
                {
                    { "i32", -7 }, { "u32", 7u }, { "i64", -1L << 40 }, { "u64", ulong.MaxValue }, { "f64", 0.5 },
                    { "b8", true }, { "s16", "Fabrikam" },
                }.AddBool32("b32", true).AddUtf8("s8", "Contoso Ltd").Add("raw", 14, 0, new byte[] { 1, 2, 3 }));
                // A NUL in a field name is refused, naming the field.
                var e = Assert.Throws<OpenEtwException>(() => provider.Write("Bad", new TraceLoggingFields { { "a\0b", 1 } }));
                Assert.Equal(Status.InvalidParameter, e.Status);
                Assert.Contains("field 0", e.Message);
                session.Stop();
            }
            var seen = new List<(string, ushort, object)>();
            string? eventName = null;
            using (var consumer = Consumer.Open(new[] { path }, new ConsumerOptions
            {
                OnEventRecord = r =>
                {
                    DecodedEvent d = r.Decode()!;
                    eventName = d.EventName;
                    foreach (DecodedProperty p in d.Properties.Where(p => p.Parent < 0))
                        seen.Add((p.Name, p.InType, d.Fields[p.Name]));
                    return true;
                },
            }))
            {
                Assert.True(consumer.Process());
            }
            Assert.Equal("Dynamic", eventName);
            Assert.Equal(new (string, ushort, object)[]
            {
                ("i32", 7, -7), ("u32", 8, 7u), ("i64", 9, -1L << 40), ("u64", 10, ulong.MaxValue), ("f64", 12, 0.5),
                ("b8", 4, true), ("s16", 22, "Fabrikam"), ("b32", 13, true), ("s8", 2, "Contoso Ltd"),
                ("raw", 14, new byte[] { 1, 2, 3 }),
            }, seen);
        }
    }
}
