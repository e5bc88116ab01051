// Export a session to NATS JetStream, read the stream back, collect it into .etl files.
using OpenEtw;

// The nats-server and its credentials file: the test harness names them (never in the URL).
var stream = new NatsStream(Environment.GetEnvironmentVariable("OPENETW_EXAMPLE_NATS_URL") + "/FLEETCS",
                            Environment.GetEnvironmentVariable("OPENETW_EXAMPLE_NATS_CREDENTIALS"));
var guid = new Guid("0a4f3c2e-5d6b-4a7c-9e8f-1b2c3d4e5f61");
string work = Directory.CreateTempSubdirectory("fleet-cs").FullName;
string local = Path.Combine(work, "fleet.etl");

using (var props = stream.Export(new Properties("Fleet CSharp") { LogFileName = local }))  // the file, and the stream
using (var provider = new Provider(guid))
using (var session = Session.Start(props))
{
    session.EnableProvider(guid, EtwLevel.Verbose);
    for (int i = 0; i < 1000; i++)
        provider.Write(type: 10, EtwLevel.Information, BitConverter.GetBytes(i));
    session.Stop();                        // returns once the stream acknowledged every buffer
}

var files = new List<uint>();              // read as a file: one per machine's session instance
using (var consumer = stream.Open(new ConsumerOptions { OnEvent = e => { files.Add(e.Record.FileIndex); return true; } }))
{
    consumer.Process();
    files.RemoveAll(i => consumer.GetStreamSource((int)i) is not { Session: "Fleet CSharp" } s
                         || s.Machine != System.Net.Dns.GetHostName());
}

string collected = Directory.CreateDirectory(Path.Combine(work, "collected")).FullName;
CollectReport report = stream.Collect(collected, session: "Fleet CSharp");  // MACHINE.SESSION.START.etl, byte for byte
CollectedFile f = report.Files[0];
bool same = File.ReadAllBytes(f.Path).AsSpan().SequenceEqual(File.ReadAllBytes(local));
Console.WriteLine($"Fleet CSharp: {files.Count} events read back, {report.Files.Count} file collected " +
                  $"({f.Outcome}, complete={f.Complete}, identical={same})");
