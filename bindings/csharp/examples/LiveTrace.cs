// A live trace: 100,000 events from 2 threads, every one delivered.
using OpenEtw;

var guid = new Guid("6f2c1a3e-9b4d-4e21-8c7a-0123456789ab");
using var provider = new Provider(guid);
await using var trace = new LiveTrace("Live CSharp", new ProviderEnable(guid, EtwLevel.Information));
var writers = Task.WhenAll(Enumerable.Range(0, 2).Select(_ => Task.Run(() =>
{
    for (int i = 0; i < 50_000; i++) provider.Write(type: 10, EtwLevel.Information, "hello"u8);
})));
_ = writers.ContinueWith(_ => trace.Stop()); // the enumeration ends once every event was delivered
int received = 0;
await foreach (Event e in trace.Events) received++;
Console.WriteLine($"Live CSharp: {received} events received, {trace.Stop().EventsLost} lost");
