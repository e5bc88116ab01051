using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading;
using Xunit;

namespace OpenEtw.Tests
{
    /// <summary>
    /// The logman workflow across processes: in a system-wide namespace of its own, one
    /// process starts a detached file session and exits; the session host keeps it running
    /// until a later process opens it by name and stops it.
    /// </summary>
    public class SessionHostTests
    {
        private const int Events = 2000;
        private static int s_namespaces;

        /// <summary>A registry of this process's own for the children, its files removed on dispose.</summary>
        private sealed class Namespace : IDisposable
        {
            public Namespace()
            {
                Registry = $"/dev/shm/openetw-bind-host-{Environment.ProcessId}-cs{Interlocked.Increment(ref s_namespaces)}.registry";
                Remove();
            }

            public string Registry { get; }

            public void Dispose() => Remove();

            private void Remove()
            {
                foreach (string f in Directory.GetFiles("/dev/shm", Path.GetFileName(Registry) + "*"))
                    File.Delete(f);
            }

            /// <summary>Runs <see cref="Child"/> in the namespace; its stdout, after checking it succeeded.</summary>
            public string Run(string mode, string name, string path, Guid provider)
            {
                var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
                {
                    RedirectStandardOutput = true,
                    RedirectStandardError = true,
                };
                foreach (string arg in new[] { "exec", typeof(SessionHostTests).Assembly.Location, Program.HostChild,
                                               mode, name, path, provider.ToString() })
                    start.ArgumentList.Add(arg);
                start.Environment["OPENETW_REGISTRY"] = Registry;
                start.Environment.Remove("OPENETW_HOST"); // a real session host, not the child itself
                // OPENETW_HOSTD, when set (scripts/bindings-tests.sh names the build's), is
                // inherited; otherwise the library finds the host daemon beside itself.
                using Process child = Process.Start(start)!;
                var errors = child.StandardError.ReadToEndAsync();
                string stdout = child.StandardOutput.ReadToEnd();
                if (!child.WaitForExit(60_000))
                {
                    child.Kill();
                    throw new TimeoutException($"{mode}: the child did not exit");
                }
                Assert.True(child.ExitCode == 0, $"{mode}: exit code {child.ExitCode}: {stdout}{errors.Result}");
                return stdout;
            }
        }

        private static string Line(string stdout, string prefix)
        {
            string? line = stdout.Split('\n').Select(l => l.TrimEnd('\r')).FirstOrDefault(l => l.StartsWith(prefix, StringComparison.Ordinal));
            Assert.True(line != null, $"no '{prefix}' in {stdout}");
            return line!.Substring(prefix.Length);
        }

        [Fact]
        public void ADetachedSessionOutlivesItsStarterUntilAnotherProcessStopsIt()
        {
            using var ns = new Namespace();
            using var scratch = new Scratch();
            string name = Scratch.SessionName("HostDetached"), path = scratch.File("detached.etl");
            var provider = Guid.NewGuid();
            uint starter = uint.Parse(Line(ns.Run("start-detached", name, path, provider), "started by "));
            string stopped = ns.Run("open-and-stop", name, path, provider);
            Assert.NotEqual(starter, uint.Parse(Line(stopped, "hosted by "))); // the session host ran it
            Assert.Equal("0 lost", Line(stopped, "stopped: "));
            Assert.True(File.Exists(ns.Registry), "the children did not use their namespace");
            Assert.Equal("ETW_ERROR_WMI_INSTANCE_NOT_FOUND", Line(ns.Run("open-missing", name, path, provider), "open: "));

            var records = Helpers.ReadAll(path);
            Assert.Equal(Enumerable.Range(0, Events).Select(i => "event " + i), records.Select(r => r.Payload));
            Assert.All(records, r => Assert.Equal((provider, (byte)7), (r.Guid, r.Opcode)));
        }

        [Fact]
        public void DisposingAStartedSessionStopsItForTheNextProcess()
        {
            using var ns = new Namespace();
            using var scratch = new Scratch();
            string name = Scratch.SessionName("HostDisposed"), path = scratch.File("disposed.etl");
            var provider = Guid.NewGuid();
            ns.Run("start-disposed", name, path, provider);
            Assert.True(File.Exists(ns.Registry), "the child did not use its namespace");
            Assert.Equal("ETW_ERROR_WMI_INSTANCE_NOT_FOUND", Line(ns.Run("open-missing", name, path, provider), "open: "));
        }

        /// <summary>Runs in the children of the tests above.</summary>
        internal static int Child(string mode, string name, string path, Guid provider)
        {
            switch (mode)
            {
                case "start-detached":
                case "start-disposed":
                {
                    using var props = Helpers.FileProperties(name, path);
                    props.MaximumBuffers = 64;
                    using (var session = Session.Start(props, Helpers.Lossless))
                    {
                        if (mode == "start-detached")
                            session.Detach();
                        session.EnableProvider(provider);
                        using var writer = new Provider(provider);
                        for (int i = 0; i < Events; i++)
                            writer.Write(provider, 7, EtwLevel.Information, 0, Helpers.Utf8("event " + i));
                        Console.WriteLine("started by " + Environment.ProcessId);
                    } // disposed: stops the session unless detached; then the process exits
                    return 0;
                }
                case "open-and-stop":
                {
                    using var session = Session.Open(name);
                    SessionHostInfo host = session.HostInfo;
                    if (host.State != SessionHostState.Running)
                        throw new InvalidOperationException("host state " + host.State);
                    Console.WriteLine("hosted by " + host.ProcessId);
                    Console.WriteLine("stopped: " + session.Stop().EventsLost + " lost");
                    return 0;
                }
                case "open-missing":
                    try
                    {
                        using var session = Session.Open(name);
                        Console.WriteLine("open: ok");
                    }
                    catch (OpenEtwException e)
                    {
                        Console.WriteLine("open: " + e.StatusName);
                    }
                    return 0;
                default:
                    return 2;
            }
        }
    }
}
