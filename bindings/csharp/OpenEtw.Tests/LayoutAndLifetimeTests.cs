using System;
using System.IO;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using OpenEtw.Interop;
using Xunit;

namespace OpenEtw.Tests
{
    public class LayoutTests
    {
        private static int Offset<TStruct, TField>(ref TStruct s, ref TField field) =>
            (int)Unsafe.ByteOffset(ref Unsafe.As<TStruct, byte>(ref s), ref Unsafe.As<TField, byte>(ref field));

        [Fact]
        public void SizesMatchTheHeader()
        {
            Assert.Equal((int)NativeMethods.ETW_WNODE_HEADER_SIZE, Unsafe.SizeOf<WnodeHeader>());
            Assert.Equal((int)NativeMethods.ETW_EVENT_TRACE_PROPERTIES_SIZE, Unsafe.SizeOf<EventTraceProperties>());
            Assert.Equal((int)NativeMethods.ETW_EVENT_TRACE_HEADER_SIZE, Unsafe.SizeOf<EventTraceHeader>());
            Assert.Equal((int)NativeMethods.ETW_MOF_FIELD_SIZE, Unsafe.SizeOf<MofField>());
            Assert.Equal((int)NativeMethods.ETW_TIME_ZONE_INFORMATION_SIZE, Unsafe.SizeOf<TimeZoneInformation>());
            Assert.Equal((int)NativeMethods.ETW_TRACE_LOGFILE_HEADER64_SIZE, Unsafe.SizeOf<TraceLogfileHeader64>());
            Assert.Equal((int)NativeMethods.ETW_TRACE_LOGFILE_HEADER32_SIZE, Unsafe.SizeOf<TraceLogfileHeader32>());
        }

        [Fact]
        public void OffsetsMatchWindows()
        {
            var p = new EventTraceProperties();
            Assert.Equal(24, Offset(ref p, ref p.Wnode.Guid));
            Assert.Equal(40, Offset(ref p, ref p.Wnode.ClientContext));
            Assert.Equal(48, Offset(ref p, ref p.BufferSize));
            Assert.Equal(104, Offset(ref p, ref p.LoggerThreadId));
            Assert.Equal(116, Offset(ref p, ref p.LoggerNameOffset));
            var h = new EventTraceHeader();
            Assert.Equal(4, Offset(ref h, ref h.Class));
            Assert.Equal(16, Offset(ref h, ref h.TimeStamp));
            Assert.Equal(40, Offset(ref h, ref h.ClientContext));
            var l = new TraceLogfileHeader64();
            Assert.Equal(72, Offset(ref l, ref l.TimeZone));
            Assert.Equal(0xF8, Offset(ref l, ref l.BootTime));
        }

        [Fact]
        public void Utf16NamesReadUpToTheirNul()
        {
            var name = new Utf16Name32();
            Span<ushort> units = name;
            "UTC".AsSpan().CopyTo(System.Runtime.InteropServices.MemoryMarshal.Cast<ushort, char>(units));
            Assert.Equal("UTC", name.ToString());
        }
    }

    public class ResolverTests
    {
        [Fact]
        public void TheNativeLibrariesComeFromTheOutputFolder()
        {
            string native = Path.Combine(AppContext.BaseDirectory, "runtimes", NativeLibraryResolver.RuntimeId, "native");
            Assert.True(File.Exists(Path.Combine(native, NativeLibraryResolver.LibraryFileName)));
            Assert.True(File.Exists(Path.Combine(native, NativeLibraryResolver.GlueFileName)));
            Assert.Equal("libopenetw.so.1", OperatingSystem.IsLinux() ? NativeLibraryResolver.LibraryFileName : "libopenetw.so.1");
            Assert.Equal(OpenEtwLibrary.Version, NativeMethods.etw_version_string());
        }
    }

    [CollectionDefinition("Serial", DisableParallelization = true)]
    public class SerialCollection { }

    // Serial: other tests' live objects would blur the measurement.
    [Collection("Serial")]
    public class LifetimeTests
    {
        [StructLayout(LayoutKind.Sequential)]
        private struct MallInfo2
        {
            public nuint Arena, Ordblks, Smblks, Hblks, Hblkhd, Usmblks, Fsmblks, Uordblks, Fordblks, Keepcost;
        }

        [DllImport("libc", EntryPoint = "mallinfo2")]
        private static extern MallInfo2 MallInfo();

        // Bytes malloc has handed out and not had back: where leaked native objects show,
        // unlike RSS, which the managed heap's own growth blurs.
        private static long NativeHeapBytes()
        {
            MallInfo2 info = MallInfo();
            return (long)info.Uordblks + (long)info.Hblkhd;
        }

        private enum Release { Dispose, Finalizer, Leak }

        private static void Churn(int count, Release release)
        {
            for (int i = 0; i < count; ++i)
            {
                var p = new Properties("Cs Churn " + i) { LogFileName = "/tmp/churn.etl", LogFileMode = LogFileMode.Sequential };
                var q = Properties.FromBlock(p.ToBlock());
                try { q.SessionName = ""; } catch (OpenEtwException) { }
                if (release == Release.Dispose)
                {
                    p.Dispose();
                    q.Dispose();
                }
                else if (release == Release.Leak)
                {
                    p.Handle.SetHandleAsInvalid();
                    q.Handle.SetHandleAsInvalid();
                }
            }
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
        }

        private static long Growth(Release release)
        {
            Churn(4000, release); // warm up the runtime and the allocators
            long before = NativeHeapBytes();
            Churn(20000, release);
            return NativeHeapBytes() - before;
        }

        // Two leaked objects (~700 bytes with their names) per iteration add ~14 MB; the
        // runtime's own malloc use moves the figure by about 1 MB either way.
        private const long Threshold = 4 << 20;

        [Theory]
        [InlineData(true)]
        [InlineData(false)] // the SafeHandle finalizers free what Dispose did not
        public void ObjectsDoNotLeak(bool dispose)
        {
            if (!OperatingSystem.IsLinux())
                return;
            long grown = Growth(dispose ? Release.Dispose : Release.Finalizer);
            Assert.True(grown < Threshold, $"the native heap grew by {grown} bytes");
        }

        [Fact]
        public void TheMeasureSeesALeak()
        {
            if (!OperatingSystem.IsLinux())
                return;
            long grown = Growth(Release.Leak);
            Assert.True(grown > Threshold, $"leaking every object grew the native heap by only {grown} bytes");
        }
    }
}
