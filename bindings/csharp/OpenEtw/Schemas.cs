using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using OpenEtw.Interop;

namespace OpenEtw
{
    /// <summary>
    /// The manifests and provider binaries events decode with (TraceEvent's
    /// DynamicTraceEventParser/RegisteredTraceEventParser role; TDH finds them through the
    /// registry on Windows). TraceLogging events carry their schema and the kernel (MOF)
    /// classes are built in; manifest-based events need their provider's instrumentation
    /// manifest (.man) or the binary that carries it compiled (a WEVT_TEMPLATE resource).
    /// A consumer decodes with <see cref="ConsumerOptions.Schemas"/>, or <see cref="Default"/>.
    /// Every thread decoding with a Schemas has its own decoder (decode.h's thread rule) with
    /// every source loaded so far, in load order. Loads are thread-safe; a failed load throws
    /// <see cref="OpenEtwException"/> with the library's status and message (naming the file)
    /// and leaves the schemas as they were.
    /// </summary>
    public sealed class Schemas : IDisposable
    {
        private enum Kind { Manifest, Binary }

        private readonly object _lock = new();
        // Only appended to: a thread's decoder applies the entries past its count.
        private readonly List<(Kind Kind, byte[] Data)> _sources = new();
        // Not tracking all values: a finished thread's decoder is then unreachable, and its
        // SafeHandle frees it (the default schemas live as long as the process).
        private readonly ThreadLocal<ThreadDecoder> _decoders = new(() => new ThreadDecoder());

        private sealed class ThreadDecoder
        {
            internal DecoderHandle? Handle;
            internal int Applied;
        }

        /// <summary>What consumers given no <see cref="ConsumerOptions.Schemas"/> decode with (initially no source).</summary>
        public static Schemas Default { get; } = new();

        /// <summary>How many sources were loaded.</summary>
        public int SourceCount { get { lock (_lock) return _sources.Count; } }

        /// <summary>
        /// Loads an instrumentation manifest (.man XML, UTF-8 or UTF-16 with a BOM). Throws
        /// OpenEtwException: InvalidData (bad XML, an inconsistent manifest: the message names
        /// the file and line), FileNotFound, AccessDenied, NoUnicodeTranslation.
        /// </summary>
        public Schemas LoadManifest(string path)
        {
            ArgumentNullException.ThrowIfNull(path);
            Load(Kind.Manifest, d => NativeMethods.etw_decoder_load_manifest(d, path), () => File.ReadAllBytes(path));
            return this;
        }

        /// <summary>As <see cref="LoadManifest"/>, from the manifest's text (messages name it "(memory)").</summary>
        public Schemas LoadManifestText(ReadOnlySpan<byte> text) => LoadBytes(Kind.Manifest, text.ToArray());

        /// <summary>As <see cref="LoadManifest"/>, from the manifest's text.</summary>
        public Schemas LoadManifestText(string text) => LoadBytes(Kind.Manifest, System.Text.Encoding.UTF8.GetBytes(text));

        /// <summary>
        /// Loads the manifest compiled into a provider binary (a PE DLL/EXE/SYS with a
        /// WEVT_TEMPLATE resource; names from its MESSAGETABLE). Throws OpenEtwException:
        /// NotFound (no WEVT_TEMPLATE), InvalidData (not a PE image, or damaged: the message
        /// names the file, part and offset), FileNotFound, AccessDenied.
        /// </summary>
        public Schemas LoadBinary(string path)
        {
            ArgumentNullException.ThrowIfNull(path);
            Load(Kind.Binary, d => NativeMethods.etw_decoder_load_binary(d, path), () => File.ReadAllBytes(path));
            return this;
        }

        /// <summary>As <see cref="LoadBinary"/>, from the bytes of a PE file.</summary>
        public Schemas LoadBinaryImage(ReadOnlySpan<byte> image) => LoadBytes(Kind.Binary, image.ToArray());

        private Schemas LoadBytes(Kind kind, byte[] data)
        {
            Load(kind, d => Apply(d, kind, data), () => data);
            return this;
        }

        private void Load(Kind kind, Action<DecoderHandle> load, Func<byte[]> read)
        {
            lock (_lock)
            {
                ThreadDecoder t = Current();
                load(t.Handle!); // the library reads and checks the source first: its message names the file
                byte[] data;
                try { data = read(); }
                catch
                {
                    Reset(t); // it holds a source the other threads would not get
                    throw;
                }
                _sources.Add((kind, data));
                t.Applied = _sources.Count;
            }
        }

        private static unsafe void Apply(DecoderHandle decoder, Kind kind, byte[] data)
        {
            ref byte first = ref MemoryMarshal.GetArrayDataReference(data);
            if (kind == Kind.Manifest)
                NativeMethods.etw_decoder_load_manifest_text(decoder, ref first, (nuint)data.Length);
            else
                NativeMethods.etw_decoder_load_binary_image(decoder, ref first, (nuint)data.Length);
        }

        private static void Reset(ThreadDecoder t)
        {
            t.Handle?.Dispose();
            t.Handle = null;
            t.Applied = 0;
        }

        /// <summary>This thread's decoder, brought up to date with every source loaded so far.</summary>
        private ThreadDecoder Current()
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            ThreadDecoder t = _decoders.Value!;
            if (t.Handle == null)
            {
                NativeMethods.etw_decoder_create(out var created);
                (t.Handle, t.Applied) = (created, 0);
            }
            while (true)
            {
                (Kind, byte[]) next;
                lock (_lock)
                {
                    if (t.Applied >= _sources.Count)
                        return t;
                    next = _sources[t.Applied];
                }
                Apply(t.Handle, next.Item1, next.Item2);
                t.Applied++;
            }
        }

        /// <summary>
        /// Decodes a record being delivered with these schemas (whatever the consumer's):
        /// null when no schema describes it; OpenEtwException (InvalidData) when its payload
        /// does not match its schema.
        /// </summary>
        public DecodedEvent? Decode(TraceRecord record) => record.DecodeWith(this);

        /// <summary>
        /// Decodes a manifest-based event known only by its provider, id, version and user
        /// data (e.g. one stored elsewhere): null when no loaded manifest or binary has it.
        /// </summary>
        public unsafe DecodedEvent? Decode(Guid providerId, ushort id, byte version, ReadOnlySpan<byte> userData)
        {
            fixed (byte* data = userData)
            {
                var r = new RecordNative
                {
                    StructSize = (uint)sizeof(RecordNative), Kind = (uint)RecordKind.Event,
                    PointerSize = (uint)IntPtr.Size, Guid = providerId, EventId = id, Version = version,
                    Payload = (IntPtr)data, PayloadSize = (uint)userData.Length,
                };
                return DecodedEvent.Decode(&r, this, delivered: false);
            }
        }

        /// <summary>This thread's decoder and how many sources it has (DecodedEvent's cache key).</summary>
        internal DecoderHandle Decoder(out int generation)
        {
            ThreadDecoder t = Current();
            generation = t.Applied;
            return t.Handle!;
        }

        // ---- Which schemas the record being delivered on this thread decodes with ----
        [ThreadStatic] private static Schemas? t_current;

        /// <summary>The consumer callbacks set it around each callback (restored after, for nesting).</summary>
        internal static Schemas? Enter(Schemas? schemas)
        {
            Schemas? previous = t_current;
            t_current = schemas;
            return previous;
        }

        internal static void Leave(Schemas? previous) => t_current = previous;

        internal static Schemas Active => t_current ?? Default;

        private bool _disposed;

        /// <summary>
        /// Frees this thread's decoder now and lets the other threads' ones be finalized; no
        /// decoding with these schemas may follow or run meanwhile. Not for <see cref="Default"/>.
        /// </summary>
        public void Dispose()
        {
            if (ReferenceEquals(this, Default))
                throw new InvalidOperationException("Schemas.Default is shared and is never disposed");
            lock (_lock)
            {
                if (_disposed)
                    return;
                _disposed = true;
                if (_decoders.IsValueCreated)
                    _decoders.Value!.Handle?.Dispose();
                _decoders.Dispose();
            }
        }
    }
}
