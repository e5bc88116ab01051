using System;
using System.Collections.Concurrent;
using System.Diagnostics;
using System.IO;
using System.Linq;
using Xunit;

namespace OpenEtw.Tests
{
    /// <summary>
    /// KernelTrace: the system logger live (runs as root, as CI): a child's Process/Start and
    /// End arrive decoded through the callbacks; disposing stops the session; failures throw
    /// with the status.
    /// </summary>
    public class KernelTraceTests
    {
        /// <summary>Runs /bin/true; returns its pid.</summary>
        private static uint RunTrue()
        {
            using var child = Process.Start("/bin/true");
            child.WaitForExit();
            Assert.Equal(0, child.ExitCode);
            return (uint)child.Id;
        }

        private static void AssertGone(string name) =>
            Assert.Equal(Status.WmiInstanceNotFound, Assert.Throws<OpenEtwException>(() => Session.Open(name)).Status);

        /// <summary>The EnableFlags of the running session <paramref name="name"/>.</summary>
        private static KernelFlags EnableFlagsOf(string name)
        {
            using var opened = Session.Open(name);
            using var query = new Properties("(query)");
            opened.Query(query);
            return query.EnableFlags;
        }

        [Fact]
        public void AChildProcessArrivesDecodedThroughTheFilteredCallbacks()
        {
            string name = Scratch.SessionName("Kernel");
            var starts = new ConcurrentQueue<KernelEvent>();
            var ends = new ConcurrentQueue<KernelEvent>();
            var processes = new ConcurrentQueue<KernelEvent>();
            var every = new ConcurrentQueue<KernelEvent>();
            uint pid;
            SessionStatistics stats;
            using (var trace = new KernelTrace(KernelFlags.Process, name))
            {
                trace.On("process/start", starts.Enqueue) // names compare case-insensitively
                     .On("Process", 2, ends.Enqueue)       // Class.Type 2: End
                     .On("Process", processes.Enqueue)
                     .OnEvent(every.Enqueue);
                Assert.False(trace.IsRunning);
                trace.Start();
                Assert.True(trace.IsRunning);
                Assert.Equal(KernelFlags.Process, EnableFlagsOf(name));
                pid = RunTrue();
                stats = trace.Stop();
                Assert.False(trace.IsRunning);
            }
            Assert.Equal(0u, stats.EventsLost);

            // The exec's start (after the fork's) names the new image; real-time delivery goes
            // buffer by buffer, not in time order across processors.
            KernelEvent? started = starts.Where(e => e.PayloadByName("ProcessId") is uint p && p == pid)
                                         .MaxBy(e => e.Timestamp);
            Assert.True(started != null, $"no Process/Start of the child {pid} among {starts.Count}");
            Assert.Equal(("Process/Start", "Process", "Start", (byte)1),
                         (started.EventName, started.ClassName, started.OpcodeName, started.Opcode));
            Assert.Equal("true", started["ImageFileName"]);
            Assert.Equal((uint)Environment.ProcessId, started["ParentId"]);
            Assert.Equal((pid, pid), (started.ProcessId, started.ThreadId));
            Assert.True(started.TimeStamp > new DateTime(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc));
            Assert.Null(started.DecodeError);
            Assert.All(starts, e => Assert.Equal("Process/Start", e.EventName));

            Assert.All(ends, e => Assert.Equal("Process/End", e.EventName));
            KernelEvent ended = Assert.Single(ends, e => e.PayloadByName("ProcessId") is uint p && p == pid &&
                                                         (string?)e.PayloadByName("ImageFileName") == "true");
            Assert.Equal(0, ended["ExitStatus"]);

            // The rundowns: what ran at the start (this process), and at the stop.
            Assert.Contains(processes, e => e.EventName == "Process/DCStart" &&
                                            e.PayloadByName("ProcessId") is uint p && p == (uint)Environment.ProcessId);
            Assert.Contains(processes, e => e.EventName == "Process/DCEnd");
            // Every event is a Process one but the machine's SystemConfig, which ends every kernel trace.
            Assert.Contains(every, e => e.EventName == "SystemConfig/CPU");
            Assert.Equal(processes.Select(e => e.EventName),
                         every.Where(e => e.ClassName != "SystemConfig").Select(e => e.EventName));
        }

        [Fact]
        public void FlagNamesSelectTheFlagsAndDisposeStopsEverything()
        {
            string name = Scratch.SessionName("KernelDispose");
            var seen = new ConcurrentQueue<KernelEvent>();
            var trace = new KernelTrace("process,thread", name).OnEvent(seen.Enqueue);
            Assert.Equal(KernelFlags.Process | KernelFlags.Thread, trace.Flags);
            using (trace)
            {
                trace.Start();
                Assert.Equal(KernelFlags.Process | KernelFlags.Thread, EnableFlagsOf(name));
                Assert.NotNull(trace.Session);
                RunTrue();
            }
            AssertGone(name);
            Assert.False(trace.IsRunning);
            Assert.Null(trace.Session);
            Assert.Contains(seen, e => e.EventName == "Process/Start");
            Assert.Contains(seen, e => e.EventName == "Thread/Start");
            int count = seen.Count;
            RunTrue();
            Assert.Equal(count, seen.Count); // no callback after the stop
            trace.Stop(); // idempotent
        }

        [Fact]
        public void TwoTracesWithTheirOwnNamesRunAtOnce()
        {
            var a = new ConcurrentQueue<KernelEvent>();
            var b = new ConcurrentQueue<KernelEvent>();
            uint pid;
            using (var first = new KernelTrace(KernelFlags.Process, Scratch.SessionName("KernelA")).OnEvent(a.Enqueue))
            using (var second = new KernelTrace(KernelFlags.Process, Scratch.SessionName("KernelB")).OnEvent(b.Enqueue))
            {
                first.Start();
                second.Start();
                pid = RunTrue();
            }
            foreach (var seen in new[] { a, b })
                Assert.Contains(seen, e => e.EventName == "Process/Start" && e.PayloadByName("ProcessId") is uint p && p == pid);
        }

        [Fact]
        public void AnUnknownFlagNameThrowsInvalidParameterNamingIt()
        {
            var e = Assert.Throws<OpenEtwException>(() => new KernelTrace("process,bogus", Scratch.SessionName("Bogus")));
            Assert.Equal(Status.InvalidParameter, e.Status);
            Assert.Contains("\"bogus\"", e.Message);
            Assert.Equal(KernelFlags.Process | KernelFlags.ImageLoad, KernelTrace.ParseFlags("PROCESS + image_load"));
        }

        [Fact]
        public void AFlagThisSystemDoesNotServeThrowsNotSupportedAndLeavesNothing()
        {
            string name = Scratch.SessionName("KernelRegistry");
            using var trace = new KernelTrace(KernelFlags.Process | KernelFlags.Registry, name);
            var e = Assert.Throws<OpenEtwException>(trace.Start);
            Assert.Equal(Status.NotSupported, e.Status);
            Assert.Equal("ETW_ERROR_NOT_SUPPORTED", e.StatusName);
            Assert.Contains("registry", e.Message);
            Assert.False(trace.IsRunning);
            AssertGone(name);
        }

        [Fact]
        public void ANameInUseThrowsAlreadyExists()
        {
            string name = Scratch.SessionName("KernelTwice");
            using var first = new KernelTrace(KernelFlags.Process, name);
            first.Start();
            using var second = new KernelTrace(KernelFlags.Process, name);
            Assert.Equal(Status.AlreadyExists, Assert.Throws<OpenEtwException>(second.Start).Status);
            Assert.Throws<InvalidOperationException>(first.Start); // already running
        }

        [Fact]
        public void ACallbackExceptionComesBackFromStop()
        {
            string name = Scratch.SessionName("KernelThrows");
            using var trace = new KernelTrace(KernelFlags.Process, name)
                .On("Process/DCStart", _ => throw new InvalidDataException("from the callback"));
            trace.Start();
            Assert.Equal("from the callback", Assert.Throws<InvalidDataException>(() => trace.Stop()).Message);
            AssertGone(name);
        }

        [Fact]
        public void AUserWithoutTheRightGetsAccessDenied()
        {
            if (Posix.getuid() != 0 || int.Parse(File.ReadAllText("/proc/sys/kernel/perf_event_paranoid")) <= 0)
                return; // the refusal needs root to drop to nobody, and kernel.perf_event_paranoid above 0
            var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UserName = "nobody",
            };
            foreach (string arg in new[] { "exec", typeof(KernelTraceTests).Assembly.Location, Program.KernelDeniedChild,
                                           Scratch.SessionName("KernelDenied") })
                start.ArgumentList.Add(arg);
            start.Environment["HOME"] = Path.GetTempPath(); // nobody's own is not there
            using var child = Process.Start(start)!;
            string output = child.StandardOutput.ReadToEnd() + child.StandardError.ReadToEnd();
            child.WaitForExit();
            Assert.True(child.ExitCode == 0, output);
            Assert.StartsWith($"status {(uint)Status.AccessDenied}: ", output);
            Assert.Contains("CAP_PERFMON", output);
            Assert.Contains("perf_event_paranoid", output);
        }

        /// <summary>The child of the test above (Program.Main), run as nobody.</summary>
        internal static int DeniedChild(string name)
        {
            using var trace = new KernelTrace(KernelFlags.Process, name);
            try
            {
                trace.Start();
                Console.WriteLine("started as nobody");
                return 1;
            }
            catch (OpenEtwException e)
            {
                Console.WriteLine($"status {(uint)e.Status}: {e.Message}");
                return 0;
            }
        }
    }
}
