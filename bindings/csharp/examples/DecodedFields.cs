// Write an event of a class the decoder knows, then read its fields by name.
using System.Text;
using OpenEtw;

var guid = new Guid("6f2c1a3e-9b4d-4e21-8c7a-0123456789ab");
var fileIo = new Guid("90cbdc39-4a3e-11d1-84f4-0000f80464e3"); // the kernel's FileIo class
string path = Path.Combine(Path.GetTempPath(), "decoded-cs.etl");
using (var props = new Properties("Decoded CSharp") { LogFileName = path, LogFileMode = LogFileMode.Sequential })
using (var provider = new Provider(guid))
using (var session = Session.Start(props))
{
    session.EnableProvider(guid);
    byte[] payload = [.. BitConverter.GetBytes(0xFFFF8000DEAD0010UL), .. Encoding.Unicode.GetBytes("\\Device\\HarddiskVolume3\\notes.txt\0")];
    provider.Write(fileIo, type: 0, EtwLevel.Information, version: 2, payload);
    session.Stop();
}
using var consumer = Consumer.Open(path, new ConsumerOptions {
    OnEvent = e => {
        // Decoded on first use; PayloadByName is null when the field (or a schema) is absent.
        if (e.EventName == "FileIo/Name")
            Console.WriteLine($"Decoded CSharp: {e.EventName} FileName={e.PayloadByName("FileName")} " +
                              $"FileObject={e.PayloadString("FileObject")} ({e.Fields["FileObject"].GetType().Name})");
        return true;
    } });
consumer.Process();
