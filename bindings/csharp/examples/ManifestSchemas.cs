// Decode a provider's events with its instrumentation manifest (Schemas).
using System.Text;
using OpenEtw;

var guid = new Guid("3c1f6a52-8e0b-4d7e-9a41-5b2e7d9c0f13");
string manifest = $"""
    <instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
        xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"><instrumentation><events>
      <provider name="Contoso-Orders" guid="{guid:B}" symbol="CONTOSO">
        <opcodes><opcode name="Shipped" value="10"/></opcodes>
        <templates><template tid="Order">
          <data name="OrderId" inType="win:UInt32"/><data name="Customer" inType="win:UnicodeString"/>
        </template></templates>
        <events><event value="1" version="0" opcode="Shipped" level="win:Informational" template="Order"/></events>
      </provider></events></instrumentation></instrumentationManifest>
    """;
// Or LoadManifest("Contoso.man"), LoadBinary("contoso.dll"); a bad one throws OpenEtwException.
using var schemas = new Schemas().LoadManifestText(manifest);
string path = Path.Combine(Path.GetTempPath(), "manifest-cs.etl");
using (var props = new Properties("Manifest CSharp") { LogFileName = path, LogFileMode = LogFileMode.Sequential })
using (var provider = new Provider(guid))
using (var session = Session.Start(props))
{
    session.EnableProvider(guid);
    byte[] payload = [.. BitConverter.GetBytes(4711u), .. Encoding.Unicode.GetBytes("Fabrikam\0")];
    provider.Write(type: 10, EtwLevel.Information, payload);
    session.Stop();
}
using var consumer = Consumer.Open(path, new ConsumerOptions {
    Schemas = schemas,
    OnEvent = e => {
        if (e.ProviderName == "Contoso-Orders")
            Console.WriteLine($"Manifest CSharp: {e.ProviderName}/{e.OpcodeName} OrderId={e.PayloadByName("OrderId")} " +
                              $"Customer={e.PayloadByName("Customer")}");
        return true;
    } });
consumer.Process();
