// Record the kernel's process events live: a child's start and end, decoded.
using System.Collections.Concurrent;
using System.Diagnostics;
using OpenEtw;

// Flags as KernelFlags bits or names ("process,thread"); the name defaults to "NT Kernel Logger".
var events = new ConcurrentQueue<KernelEvent>();
using var trace = new KernelTrace(KernelFlags.Process, "Kernel CSharp")
    .On("Process/Start", events.Enqueue) // or "Process" (the class), ("Process", 2), OnEvent(..) for all
    .On("Process/End", events.Enqueue);  // a KernelEvent: fields by name, ProcessId, ThreadId, TimeStamp
trace.Start();                           // root or CAP_PERFMON; Dispose stops it too (thread joined)
using var child = Process.Start("/bin/true");
child.WaitForExit();
trace.Stop();                            // every event delivered
var mine = events.Where(e => e.PayloadByName("ProcessId") is uint pid && pid == child.Id &&
                             (string?)e.PayloadByName("ImageFileName") == "true").ToList();
KernelEvent start = mine.First(e => e.EventName == "Process/Start"), end = mine.First(e => e.EventName == "Process/End");
string parent = (uint)start["ParentId"] == Environment.ProcessId ? "this process" : $"{start["ParentId"]}";
Console.WriteLine($"Kernel CSharp: {start.EventName} {start["ImageFileName"]} (parent {parent}), {end.EventName} exit {end["ExitStatus"]}");
