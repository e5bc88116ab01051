using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;

namespace OpenEtw.Tests
{
    /// <summary>Unique session names and a scratch folder per test.</summary>
    internal sealed class Scratch : IDisposable
    {
        private static int s_counter;

        public Scratch()
        {
            Folder = Path.Combine(Path.GetTempPath(), $"openetw-cs-tests-{Environment.ProcessId}-{Interlocked.Increment(ref s_counter)}");
            Directory.CreateDirectory(Folder);
        }

        public string Folder { get; }

        public string File(string name) => Path.Combine(Folder, name);

        public static string SessionName(string what) =>
            $"Cs Test {what} {Environment.ProcessId} {Interlocked.Increment(ref s_counter)}";

        public void Dispose()
        {
            try { Directory.Delete(Folder, recursive: true); } catch (IOException) { }
        }
    }

    /// <summary>A record copied out of the callback.</summary>
    internal sealed record Copied(RecordKind Kind, Guid Guid, byte Opcode, EtwLevel Level, ushort Version, string Payload, uint ProcessId, long Timestamp);

    internal static class Helpers
    {
        public static Properties FileProperties(string name, string path, uint bufferKb = 16) =>
            new Properties(name) { LogFileName = path, LogFileMode = LogFileMode.Sequential, BufferSize = bufferKb };

        /// <summary>Writers wait for buffers instead of dropping: tests write faster than a disk.</summary>
        public static readonly SessionOptions Lossless = new() { Lossless = true, LosslessTimeoutMs = 10_000 };

        public static byte[] Utf8(string s) => Encoding.UTF8.GetBytes(s);

        /// <summary>Reads a file and copies every classic record.</summary>
        public static List<Copied> ReadAll(string path, ConsumerOrder order = ConsumerOrder.Time)
        {
            var records = new List<Copied>();
            using var consumer = Consumer.Open(path, new ConsumerOptions { Order = order, OnRecord = r => Add(records, r) });
            if (!consumer.Process())
                throw new InvalidOperationException("processing stopped early");
            return records;
        }

        public static bool Add(List<Copied> records, TraceRecord r)
        {
            if (r.Kind == RecordKind.Full)
                records.Add(new Copied(r.Kind, r.Guid, r.Opcode, r.Level, r.Version, Encoding.UTF8.GetString(r.Payload), r.ProcessId, r.Timestamp));
            return true;
        }
    }

    /// <summary>The few libc calls the tests need.</summary>
    internal static class Posix
    {
        [DllImport("libc.so.6", ExactSpelling = true)]
        public static extern uint getuid();
    }

    /// <summary>
    /// The test assembly's entry point (GenerateProgramFile is off): only child processes
    /// started by tests run it; the test runner never does.
    /// </summary>
    public static class Program
    {
        internal const string SystemWideChild = "system-wide-child";
        internal const string HostChild = "host-child";
        internal const string KernelDeniedChild = "kernel-denied-child";

        public static int Main(string[] args)
        {
            if (args.Length == 2 && args[0] == SystemWideChild)
                return SessionTests.SystemWideChild(args[1]);
            if (args.Length == 5 && args[0] == HostChild)
                return SessionHostTests.Child(args[1], args[2], args[3], Guid.Parse(args[4]));
            if (args.Length == 2 && args[0] == KernelDeniedChild)
                return KernelTraceTests.DeniedChild(args[1]);
            Console.Error.WriteLine("OpenEtw.Tests runs under dotnet test; this entry point serves its child processes");
            return 2;
        }
    }
}
