"""Record the kernel's process events live: a child's start and end, decoded."""
import os, subprocess
from openetw import KernelFlag, KernelTrace

# Flags as KernelFlag bits or names ("process,thread"); the name defaults to "NT Kernel Logger".
trace = KernelTrace(KernelFlag.PROCESS, name="Kernel Python")
events = []

@trace.on("Process/Start")            # or "Process" (the class), ("Process", 2), on_event= for all
def started(event):                   # a Record on the trace's thread: fields by name, pid, tid, time
    events.append((event.event_name, event["ProcessId"], event["ImageFileName"], event["ParentId"]))

trace.on("Process/End", lambda e: events.append((e.event_name, e["ProcessId"], e["ImageFileName"], e["ExitStatus"])))

with trace:                           # root or CAP_PERFMON; stopped (thread joined) when the block ends
    child = subprocess.Popen(["/bin/true"])
    child.wait()
start = next(e for e in events if e[:3] == ("Process/Start", child.pid, "true"))
end = next(e for e in events if e[:3] == ("Process/End", child.pid, "true"))
print(f"Kernel Python: {start[0]} {start[2]} (parent {'this process' if start[3] == os.getpid() else start[3]}), "
      f"{end[0]} exit {end[3]}")
