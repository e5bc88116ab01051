// Start a file session, write classic events, stop, and read them back.
using System.Text;
using OpenEtw;

var guid = new Guid("6f2c1a3e-9b4d-4e21-8c7a-0123456789ab");
string path = Path.Combine(Path.GetTempPath(), "quickstart-cs.etl");
using (var props = new Properties("Quickstart CSharp") { LogFileName = path, LogFileMode = LogFileMode.Sequential })
using (var provider = new Provider(guid, info => Console.WriteLine($"enabled={info.IsEnabled} level={info.Level}")))
using (var session = Session.Start(props))
{
    session.EnableProvider(guid, EtwLevel.Information);
    for (int i = 0; i < 3; i++)
        provider.Write(type: 10, EtwLevel.Information, Encoding.UTF8.GetBytes($"hello #{i}"));
    provider.Write(type: 10, EtwLevel.Verbose, "filtered out"u8);
    SessionStatistics stats = session.Stop();   // errors throw OpenEtwException (with .Status)
    Console.WriteLine($"stopped: {stats.BuffersWritten} buffers written, {stats.EventsLost} events lost");
}
using var consumer = Consumer.Open(path, new ConsumerOptions {
    OnEvent = e => { Console.WriteLine($"type {e.Type} level {e.Level}: {Encoding.UTF8.GetString(e.Payload)}"); return true; } });
bool complete = consumer.Process();
Console.WriteLine($"{consumer.GetLogfileHeader().LoggerName}: complete={complete}, {consumer.Statistics.Records} records");
