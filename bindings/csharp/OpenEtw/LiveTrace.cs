using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Channels;
using System.Threading.Tasks;

namespace OpenEtw
{
    /// <summary>One provider a <see cref="LiveTrace"/> enables (EnableTraceEx2's level and keywords).</summary>
    public readonly record struct ProviderEnable(Guid Guid, EtwLevel Level = EtwLevel.Verbose,
                                                 ulong MatchAnyKeyword = 0, ulong MatchAllKeyword = 0);

    /// <summary>A classic event copied out of the session: valid after the callback, unlike <see cref="ClassicEvent"/>.</summary>
    public sealed record Event(Guid Guid, byte Type, EtwLevel Level, ushort Version, uint ThreadId,
                               uint ProcessId, long Timestamp, byte[] Payload);

    /// <summary>
    /// A live trace in one object: a real-time session named <c>name</c>, its providers
    /// enabled, and a consumer on a thread of its own whose events <see cref="Events"/> yields
    /// (<c>await foreach</c>). <see cref="Stop"/> (or Dispose) stops the session; the
    /// enumeration ends once every event the session logged was yielded.
    /// </summary>
    public sealed class LiveTrace : IDisposable, IAsyncDisposable
    {
        private readonly Properties _props;
        private readonly Session _session;
        private readonly Consumer _consumer;
        private readonly Channel<Event> _events = Channel.CreateUnbounded<Event>(new UnboundedChannelOptions { SingleWriter = true });
        private readonly Task _delivery;
        private SessionStatistics? _final;

        /// <summary>Starts the session and enables <paramref name="providers"/>.</summary>
        public LiveTrace(string name, params ProviderEnable[] providers)
        {
            _props = new Properties(name) { LogFileMode = LogFileMode.RealTime };
            try
            {
                _session = Session.Start(_props);
                foreach (ProviderEnable p in providers)
                    _session.EnableProvider(p.Guid, p.Level, p.MatchAnyKeyword, p.MatchAllKeyword);
                _consumer = Consumer.OpenSession(name, new ConsumerOptions { OnEvent = Copy });
            }
            catch
            {
                _session?.Dispose(); // stops it
                _props.Dispose();
                throw;
            }
            _delivery = Task.Factory.StartNew(Deliver, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        }

        private bool Copy(ClassicEvent e)
        {
            _events.Writer.TryWrite(new Event(e.Guid, e.Type, e.Level, e.Version, e.Header.ThreadId, e.Header.ProcessId,
                                              e.Header.TimeStamp, e.Payload.ToArray()));
            return true;
        }

        private void Deliver()
        {
            try
            {
                _consumer.Process();
                _events.Writer.TryComplete();
            }
            catch (Exception ex)
            {
                _events.Writer.TryComplete(ex);
            }
        }

        /// <summary>The session, for control calls (Query, Flush, EnableProvider).</summary>
        public Session Session => _session;

        /// <summary>Every classic event, in arrival order; ends after <see cref="Stop"/>.</summary>
        public IAsyncEnumerable<Event> Events => _events.Reader.ReadAllAsync();

        /// <summary>The final statistics once stopped; null before.</summary>
        public SessionStatistics? Statistics => _final;

        /// <summary>
        /// Stops the session and waits until the consumer has taken every event it logged;
        /// returns the final statistics. Idempotent. Throws <see cref="OpenEtwException"/> when
        /// the session cannot be stopped or the consumer failed.
        /// </summary>
        public SessionStatistics Stop()
        {
            lock (_events)
            {
                if (_final is SessionStatistics done)
                    return done;
                try
                {
                    _final = _session.Stop(_props);
                }
                catch
                {
                    _consumer.Cancel(); // the feed would not end by itself
                    throw;
                }
                finally
                {
                    _delivery.Wait();
                }
                return _final.Value;
            }
        }

        /// <summary>Stops (ignoring failures) and releases everything.</summary>
        public void Dispose()
        {
            try { Stop(); }
            catch (Exception) { /* Stop() reports; Dispose must not throw */ }
            _consumer.Dispose();
            _session.Dispose();
            _props.Dispose();
        }

        /// <summary>As <see cref="Dispose"/>.</summary>
        public ValueTask DisposeAsync()
        {
            Dispose();
            return ValueTask.CompletedTask;
        }
    }
}
