using System;
using System.Collections.Generic;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using OpenEtw.Interop;
using N = OpenEtw.Interop.NativeMethods;

namespace OpenEtw
{
    /// <summary>
    /// A NATS JetStream stream that sessions export to, <c>nats://HOST[:PORT]/STREAM</c> (the
    /// nodes of a cluster separated by commas): export a session to it, read it back as files
    /// are read, collect it into one <c>.etl</c> per machine, session and start (docs/FLEET.md).
    /// </summary>
    /// <remarks>
    /// <see cref="CredentialsFile"/> (<c>key = value</c> lines: user, password, token, creds,
    /// nkey_seed, tls_*) goes to <see cref="Export"/>, <see cref="Open"/> and
    /// <see cref="Collect"/>; without one the library takes the file OPENETW_NATS_CREDENTIALS
    /// names in the process's native environment. Credentials are never part of the URL.
    /// <see cref="Open"/> with <c>follow: true</c> follows the stream: what it holds, then every
    /// buffer sessions publish to it, until <see cref="Consumer.Cancel"/>.
    /// </remarks>
    public sealed class NatsStream
    {
        /// <summary>A stream at <paramref name="url"/>, with an optional credentials file.</summary>
        public NatsStream(string url, string? credentialsFile = null)
        {
            Url = url ?? throw new ArgumentNullException(nameof(url));
            CredentialsFile = string.IsNullOrEmpty(credentialsFile) ? null : credentialsFile;
        }

        /// <summary>The stream's URL.</summary>
        public string Url { get; }

        /// <summary>The credentials file export and collect pass on, or null.</summary>
        public string? CredentialsFile { get; }

        /// <summary>
        /// Makes a session started from <paramref name="properties"/> also publish every buffer
        /// to this stream (etw_properties_set_export); returns the properties. The start then
        /// fails with <see cref="Status.AccessDenied"/> when the server refuses the credentials
        /// and <see cref="Status.FileNotFound"/> when no server answers.
        /// </summary>
        public Properties Export(Properties properties)
        {
            ArgumentNullException.ThrowIfNull(properties);
            N.etw_properties_set_export(properties.Handle, Url, CredentialsFile);
            return properties;
        }

        /// <summary>
        /// Reads the stream from its start, or from <paramref name="since"/> (UTC), to its last
        /// message now: each machine's session instance becomes one file of the consumer, read
        /// as its <c>.etl</c> would be. <see cref="StreamSources.GetStreamSource"/> names the
        /// machine and session of a file index (a record's <see cref="TraceRecord.FileIndex"/>).
        /// </summary>
        /// <remarks>
        /// <para><paramref name="follow"/> (<c>?follow=1</c>): <see cref="Consumer.Process"/>
        /// then goes on past the stream's last message with every buffer sessions publish to
        /// it, until <see cref="Consumer.Cancel"/> (or <see cref="Consumer.Dispose"/>) from
        /// another thread; it then returns false, after delivering what it had fetched. A
        /// session instance becomes a new file index when its header buffer arrives, so
        /// <see cref="Consumer.FileCount"/> grows while processing and
        /// <see cref="StreamSources.GetStreamSource"/> of a new index belongs in the callbacks
        /// (the processing thread). Records are delivered once they are 3 s old
        /// (<see cref="ConsumerOrder.Time"/>), or as they arrive (<see cref="ConsumerOrder.File"/>).
        /// An empty stream is followed; a missing one is <see cref="Status.FileNotFound"/>.</para>
        /// <code>
        /// using var consumer = stream.Open(new ConsumerOptions { OnEvent = e =&gt; { ...; return true; } }, follow: true);
        /// Task&lt;bool&gt; following = Task.Run(consumer.Process);
        /// ...
        /// consumer.Cancel(); // following's result: false
        /// </code>
        /// </remarks>
        public Consumer Open(ConsumerOptions? options = null, DateTime? since = null, bool follow = false)
        {
            var query = new List<string>(2);
            if (since is DateTime t)
                query.Add("since=" + t.ToUniversalTime().ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", CultureInfo.InvariantCulture));
            if (follow)
                query.Add("follow=1");
            string url = query.Count == 0 ? Url : Url + "?" + string.Join("&", query);
            return Consumer.OpenStream(url, CredentialsFile, options);
        }

        /// <summary>
        /// Rebuilds each session instance of the stream as FOLDER/MACHINE.SESSION.START.etl
        /// (etw_collect_stream): <paramref name="machine"/> and <paramref name="session"/>
        /// select one host or session name (the session compared case-insensitively);
        /// <paramref name="overwrite"/> replaces a file that exists with other contents.
        /// Throws <see cref="CollectException"/> unless every selected instance was complete
        /// and its file written or unchanged; its <see cref="CollectException.Report"/> is
        /// what was done (empty when the stream could not be read).
        /// </summary>
        public CollectReport Collect(string folder, string? machine = null, string? session = null,
                                     bool overwrite = false)
        {
            ArgumentNullException.ThrowIfNull(folder);
            N.etw_collect_report_create(out CollectReportHandle handle);
            using (handle)
            {
                uint status = N.etw_collect_stream(handle, Url, folder, machine, session, CredentialsFile,
                                                   overwrite ? N.ETW_COLLECT_OVERWRITE : 0);
                string message = status == 0 ? "" : N.etw_last_error_message();
                N.etw_collect_report_file_count(out uint count, handle);
                N.etw_collect_report_skipped(out ulong skipped, handle);
                var files = new List<CollectedFile>((int)count);
                for (uint i = 0; i < count; i++)
                {
                    var f = new CollectedFileNative { StructSize = (uint)Unsafe.SizeOf<CollectedFileNative>() };
                    N.etw_collect_report_file(ref f, handle, i);
                    string missing = Marshal.PtrToStringUTF8(f.Missing) ?? "";
                    files.Add(new CollectedFile(
                        Marshal.PtrToStringUTF8(f.Path) ?? "", Marshal.PtrToStringUTF8(f.Machine) ?? "",
                        Marshal.PtrToStringUTF8(f.Session) ?? "", f.StartTime,
                        Marshal.PtrToStringUTF8(f.StartUtc) ?? "", (CollectOutcome)f.Outcome,
                        f.DataBuffers, f.Complete != 0,
                        missing.Length == 0 ? Array.Empty<string>() : missing.Split('\n'),
                        Marshal.PtrToStringUTF8(f.Error) ?? ""));
                }
                var report = new CollectReport(files, skipped);
                if (status != 0)
                    throw new CollectException((Status)status, message, report);
                return report;
            }
        }
    }

    /// <summary>What became of a collected session instance's file (ETW_COLLECT_*).</summary>
    public enum CollectOutcome : uint
    {
        /// <summary>A new file.</summary>
        Written = NativeMethods.ETW_COLLECT_WRITTEN,
        /// <summary>The file existed with these very bytes.</summary>
        Unchanged = NativeMethods.ETW_COLLECT_UNCHANGED,
        /// <summary>The file existed with other bytes; overwrite replaced it.</summary>
        Replaced = NativeMethods.ETW_COLLECT_REPLACED,
        /// <summary>The file existed with other bytes and was left alone.</summary>
        Kept = NativeMethods.ETW_COLLECT_KEPT,
        /// <summary>The stream no longer holds the header buffer: no file could begin.</summary>
        NoFile = NativeMethods.ETW_COLLECT_NO_FILE,
        /// <summary>Writing the file failed (<see cref="CollectedFile.Error"/>).</summary>
        Failed = NativeMethods.ETW_COLLECT_FAILED,
    }

    /// <summary>One session instance of a collected stream and what became of its file.</summary>
    /// <param name="Path">FOLDER/MACHINE.SESSION.START.etl, the names escaped.</param>
    /// <param name="Machine">The host name the session's export sent.</param>
    /// <param name="Session">The session name.</param>
    /// <param name="StartTime">The session's StartTime, FILETIME (UTC).</param>
    /// <param name="StartUtc">The start as the file name gives it, UTC YYYYMMDDTHHMMSS.fffffffZ.</param>
    /// <param name="Outcome">What was done with the file.</param>
    /// <param name="DataBuffers">Data buffers in the file.</param>
    /// <param name="Complete">The stream held all of it: the file is the session's own.</param>
    /// <param name="Missing">Sentences saying what the stream lacks; empty when complete.</param>
    /// <param name="Error">Why the file was kept or not written; "" otherwise.</param>
    public sealed record CollectedFile(string Path, string Machine, string Session, long StartTime,
                                       string StartUtc, CollectOutcome Outcome, ulong DataBuffers, bool Complete,
                                       IReadOnlyList<string> Missing, string Error);

    /// <summary>What a collect did: the files in (machine, session, start) order, and how many
    /// instances the session filter left out (the machine filter is the server's: what it
    /// leaves out is never read).</summary>
    public sealed record CollectReport(IReadOnlyList<CollectedFile> Files, ulong Skipped);

    /// <summary>A collect that did not rebuild every selected instance whole: the status says
    /// why (<see cref="Status.AlreadyExists"/> a file kept, <see cref="Status.HandleEof"/> an
    /// instance incomplete, <see cref="Status.NoMoreItems"/> nothing matched, or the reader's
    /// status), <see cref="Report"/> what was done.</summary>
    public sealed class CollectException : OpenEtwException
    {
        internal CollectException(Status status, string message, CollectReport report) : base(status, message) =>
            Report = report;

        /// <summary>The files as far as the collect went (empty when the stream could not be read).</summary>
        public CollectReport Report { get; }
    }

    /// <summary>The machine's session instance a file of a stream consumer came from.</summary>
    /// <param name="Machine">The host name.</param>
    /// <param name="Session">The session name.</param>
    /// <param name="StartTime">The session's StartTime, FILETIME (UTC).</param>
    public sealed record StreamSource(string Machine, string Session, long StartTime);

    /// <summary>Which machine and session each file of a stream consumer holds.</summary>
    public static class StreamSources
    {
        /// <summary>
        /// The source of file <paramref name="fileIndex"/> of a consumer opened on a stream
        /// (<see cref="NatsStream.Open"/>), or null for a file that did not come from one.
        /// </summary>
        public static StreamSource? GetStreamSource(this Consumer consumer, int fileIndex)
        {
            ArgumentNullException.ThrowIfNull(consumer);
            // The reader names each file "URL#machine/session/start", names escaped as
            // subject tokens (%XX), so neither part holds a '/' of its own.
            string path = consumer.GetLogfileHeader(fileIndex).Path;
            int hash = path.LastIndexOf('#');
            string[] parts = hash < 0 ? Array.Empty<string>() : path[(hash + 1)..].Split('/');
            if (parts.Length != 3 || !long.TryParse(parts[2], out long start))
                return null;
            return new StreamSource(Unescape(parts[0]), Unescape(parts[1]), start);
        }

        private static string Unescape(string token) => token == "%" ? "" : Uri.UnescapeDataString(token);
    }
}
