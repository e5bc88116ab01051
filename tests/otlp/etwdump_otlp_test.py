"""etwdump --otlp end to end: a .etl file written here by a real session (the
system logger's process and thread rundown) and Windows-written files
(TraceLogging, manifest and kernel events), a live session followed by name
and a NATS stream a session exported, are sent to a real HTTP receiver (otlp_receiver.py) and every record must
arrive once, in order, with the time, severity, names and fields that
`etwdump --format jsonl` shows for the same files; retryable answers are
retried without loss or duplicates; a refused request, a receiver that is gone
and TLS failures are reported, not hung.
usage: etwdump_otlp_test.py BUILD_DIR SAMPLE.etl... (PYTHONPATH: the generated schema)"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

from otlp_receiver import Receiver, value_of

BUILD, SAMPLES = sys.argv[1], sys.argv[2:]
ETWDUMP = os.path.join(BUILD, 'tools/etwdump/etwdump')
ETWCTL = os.path.join(BUILD, 'tools/etwctl/etwctl')
SEVERITY = {0: (9, 'INFO'), 1: (21, 'FATAL'), 2: (17, 'ERROR'), 3: (13, 'WARN'), 4: (9, 'INFO'), 5: (5, 'DEBUG')}
FIXED = {'etw.provider.guid', 'etw.provider.name', 'etw.event.name', 'etw.event.id', 'etw.event.version',
         'etw.event.level', 'etw.event.opcode', 'etw.event.task', 'etw.event.keyword', 'etw.event.task_name',
         'etw.event.opcode_name', 'process.pid', 'thread.id'}


def session_env(folder):
    """Sessions of the test's own registry, hosted by the build's session host."""
    return dict(os.environ, OPENETW_REGISTRY=os.path.join(folder, 'registry'),
                OPENETW_HOSTD=os.path.join(BUILD, 'openetw-hostd'))


def written_by_a_session(folder):
    """A .etl file the system logger writes: its rundown of every process and thread."""
    env = session_env(folder)
    path = os.path.join(folder, 'kernel.etl')
    subprocess.run([ETWCTL, 'start', 'OtlpKernel', '--mode', 'system-logger', '--enable-flags', 'process,thread',
                    '--file', path], env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([ETWCTL, 'stop', 'OtlpKernel'], env=env, check=True, stdout=subprocess.DEVNULL)
    return path


def expected(files, order='time'):
    out = subprocess.run([ETWDUMP, '--format', 'jsonl', '--order', order] + files, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def etwdump(url, files, *options, env=None):
    return subprocess.run([ETWDUMP, '--otlp', url, '--otlp-host', 'test-host', '--otlp-service', 'test-service'] +
                          list(options) + files, capture_output=True, text=True, timeout=300, env=env)


def without_otlp_headers():
    """The test's environment without the OTLP header variables a developer may have set."""
    return {k: v for k, v in os.environ.items() if not k.startswith('OTEL_EXPORTER_OTLP_')}


def comparable(value, like):
    """A received field as etwdump's jsonl shows it."""
    if isinstance(value, bytes):
        return '0x' + value.hex().upper()
    if isinstance(value, str) and isinstance(like, int) and not isinstance(like, bool):
        return int(value)  # an unsigned 64-bit value above INT64_MAX travels as text
    if isinstance(value, list):
        return [comparable(v, l) for v, l in zip(value, like if isinstance(like, list) else [None] * len(value))]
    if isinstance(value, dict):
        return {k: comparable(v, (like or {}).get(k)) for k, v in value.items()}
    return value


def check_record(i, want, got):
    where = 'record %d (%s)' % (i, want.get('event_name', want.get('guid')))
    assert got.time_unix_nano == (want['timestamp_filetime'] - 116444736000000000) * 100, where
    assert got.observed_time_unix_nano > 0, where
    number, text = SEVERITY.get(want.get('level', 0), (1, 'TRACE'))
    assert (got.severity_number, got.severity_text) == (number, text), where
    attrs = {kv.key: value_of(kv.value) for kv in got.attributes}
    assert len(attrs) == len(got.attributes), where + ': duplicate keys'
    if 'event_name' in want:
        assert got.body.string_value == want['event_name'], where
        assert attrs['etw.event.name'] == want['event_name'], where
    if 'guid' in want:
        assert attrs['etw.provider.guid'] == '{' + want['guid'].upper() + '}', where
    assert attrs['etw.event.id'] == want.get('event_id', 0), where
    assert attrs['etw.event.level'] == want.get('level', 0), where
    assert attrs['process.pid'] == want['process_id'] and attrs['thread.id'] == want['thread_id'], where
    fields = {k[len('etw.field.'):] if k.startswith('etw.field.') else k: v
              for k, v in attrs.items() if k not in FIXED}
    want_fields = want.get('fields', {})
    assert comparable(fields, want_fields) == want_fields, '%s: %r != %r' % (where, fields, want_fields)


def check_all(receiver, want):
    assert len(receiver.records) == len(want), '%d records received, %d in the files' % (
        len(receiver.records), len(want))
    for i, (w, g) in enumerate(zip(want, receiver.records)):
        check_record(i, w, g)
    assert all(r == {'host.name': 'test-host', 'service.name': 'test-service'} for r in receiver.resources)


def test_every_record_arrives_with_its_names_fields_and_severity(files, want):
    session = expected(files[:1])
    assert len(session) > 50 and all('event_name' in w and 'fields' in w for w in session), \
        'the rundown of every process and thread, each record decoded'
    assert {w.get('level', 0) for w in want} >= {0, 2, 4, 5}, 'several levels'
    with Receiver() as receiver:
        run = etwdump(receiver.url, files)
    assert run.returncode == 0, run.stderr
    assert '%d records sent' % len(want) in run.stderr, run.stderr
    assert all(kind == 'application/x-protobuf' for _, kind, _ in receiver.requests)
    check_all(receiver, want)


def test_json_bodies_carry_the_same_records(files, want):
    with Receiver() as receiver:
        run = etwdump(receiver.url, files, '--otlp-json')
    assert run.returncode == 0, run.stderr
    assert all(kind == 'application/json' for _, kind, _ in receiver.requests)
    check_all(receiver, want)


def test_unavailable_twice_then_accepted_loses_and_duplicates_nothing(files, want):
    # A queue smaller than the files: reading waits for the retried batch.
    with Receiver(answers=[503, 503]) as receiver:
        run = etwdump(receiver.url, files, '--otlp-batch', '50', '--otlp-queue', '60')
    assert run.returncode == 0, run.stderr
    statuses = [s for s, _, _ in receiver.requests]
    assert statuses[:3] == [503, 503, 200] and set(statuses[3:]) == {200}, statuses
    assert '(2 retries), 0 failed, 0 dropped' in run.stderr, run.stderr
    check_all(receiver, want)


class Skip(Exception):
    pass


def unused_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now: connections are refused
    return port


def test_a_receiver_that_is_gone_is_counted_and_reported(files, want):
    port = unused_port()
    run = etwdump('http://127.0.0.1:%d' % port, files, '--otlp-attempts', '2')
    assert run.returncode == 3, (run.returncode, run.stderr)
    assert ': 0 records sent' in run.stderr and ', %d failed' % len(want) in run.stderr, run.stderr
    assert 'last error: ' in run.stderr, run.stderr


def test_a_refused_request_is_not_retried_and_is_reported(files, want):
    with Receiver(answers=[400] * 1000) as receiver:
        run = etwdump(receiver.url, files, '--otlp-batch', '200')
    assert run.returncode == 3, (run.returncode, run.stderr)
    assert len(receiver.requests) == (len(want) + 199) // 200, receiver.requests  # one try per batch
    assert 'HTTP 400' in run.stderr and ', %d failed' % len(want) in run.stderr, run.stderr


def test_headers_of_the_environment_and_a_file_are_sent_on_every_request(files, want):
    with tempfile.TemporaryDirectory() as folder:
        headers_file = os.path.join(folder, 'headers')
        with open(headers_file, 'w') as f:
            f.write('# the backend\'s key\nAPI-Key: file key\nX-Extra: x\n')
        env = dict(without_otlp_headers(), OTEL_EXPORTER_OTLP_HEADERS='api-key=env%20key, tenant=t%2C1')
        with Receiver() as receiver:
            run = etwdump(receiver.url, files, '--otlp-batch', '200', '--otlp-headers-file', headers_file, env=env)
        assert run.returncode == 0, run.stderr
        assert len(receiver.requests) == (len(want) + 199) // 200 > 1, receiver.requests
        for got in receiver.headers:  # every request: the file's key replaces the environment's
            assert got.get('api-key') == 'file key' and got.get('tenant') == 't,1' and got.get('x-extra') == 'x', got
        check_all(receiver, want)
        # The logs variable is the setting when set: the general one is not read.
        env['OTEL_EXPORTER_OTLP_LOGS_HEADERS'] = 'tenant=logs'
        with Receiver() as receiver:
            run = etwdump(receiver.url, files, env=env)
        assert run.returncode == 0, run.stderr
        assert receiver.headers and all(h.get('tenant') == 'logs' and 'api-key' not in h for h in receiver.headers), \
            receiver.headers


def test_malformed_headers_are_refused_before_anything_is_sent_and_never_shown(files, want):
    with tempfile.TemporaryDirectory() as folder:
        env = dict(without_otlp_headers(), OTEL_EXPORTER_OTLP_HEADERS='api-key=s3cret%zz')
        with Receiver() as receiver:
            run = etwdump(receiver.url, files, env=env)
            assert run.returncode == 1 and not receiver.requests, (run.returncode, run.stderr, receiver.requests)
            assert 'OTEL_EXPORTER_OTLP_HEADERS: entry 1 (api-key)' in run.stderr, run.stderr
            assert 's3cret' not in run.stderr + run.stdout, run.stderr
            missing = os.path.join(folder, 'none')
            run = etwdump(receiver.url, files, '--otlp-headers-file', missing, env=without_otlp_headers())
            assert run.returncode == 1 and not receiver.requests, (run.returncode, run.stderr)
            assert "--otlp-headers-file: cannot read '%s'" % missing in run.stderr, run.stderr


def test_refused_credentials_are_reported_with_their_status_and_not_retried(files, want):
    with Receiver(answers=[401] * 1000) as receiver:
        run = etwdump(receiver.url, files, '--otlp-batch', '200', env=without_otlp_headers())
    assert run.returncode == 3, (run.returncode, run.stderr)
    assert len(receiver.requests) == 1, receiver.requests  # nothing after the refusal
    assert 'HTTP 401' in run.stderr and 'refused the credentials' in run.stderr, run.stderr
    assert ': 0 records sent' in run.stderr, run.stderr


def make_certificates(folder):
    """A CA, a receiver certificate for 127.0.0.1 and a client certificate it
    signed (openssl), and a second CA that signed neither."""
    def run(*args):
        subprocess.run(['openssl'] + list(args), check=True, capture_output=True, cwd=folder)
    for ca in ('ca', 'other-ca'):
        run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=OpenETW test ' + ca,
            '-keyout', ca + '.key', '-out', ca + '.pem')
    with open(os.path.join(folder, 'san.ext'), 'w') as f:
        f.write('subjectAltName=IP:127.0.0.1\n')
    for who in ('server', 'client'):
        run('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=' + who, '-keyout', who + '.key', '-out', who + '.csr')
        run('x509', '-req', '-in', who + '.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2',
            '-extfile', 'san.ext', '-out', who + '.pem')
    return {name: os.path.join(folder, name) for name in os.listdir(folder)}


def test_https_with_the_receivers_ca_delivers_every_record(files, want):
    with tempfile.TemporaryDirectory() as folder:
        c = make_certificates(folder)
        with Receiver(tls=(c['server.pem'], c['server.key'])) as receiver:
            run = etwdump(receiver.url, files, '--otlp-ca', c['ca.pem'])
        assert run.returncode == 0, run.stderr
        assert len(receiver.records) == len(want), (len(receiver.records), len(want))


def test_https_with_a_client_certificate_when_the_receiver_asks_for_one(files, want):
    with tempfile.TemporaryDirectory() as folder:
        c = make_certificates(folder)
        with Receiver(tls=(c['server.pem'], c['server.key'], c['ca.pem'])) as receiver:
            without = etwdump(receiver.url, files, '--otlp-ca', c['ca.pem'], '--otlp-attempts', '1')
            assert without.returncode == 3 and 'last error: ' in without.stderr, without.stderr
            assert receiver.records == []
            run = etwdump(receiver.url, files, '--otlp-ca', c['ca.pem'], '--otlp-cert', c['client.pem'],
                          '--otlp-key', c['client.key'])
        assert run.returncode == 0, run.stderr
        assert len(receiver.records) == len(want), (len(receiver.records), len(want))


def test_https_to_a_receiver_no_trusted_ca_signed_is_refused_with_the_reason(files, want):
    with tempfile.TemporaryDirectory() as folder:
        c = make_certificates(folder)
        with Receiver(tls=(c['server.pem'], c['server.key'])) as receiver:
            for options in ([], ['--otlp-ca', c['other-ca.pem']]):
                run = etwdump(receiver.url, files, '--otlp-attempts', '1', *options)
                assert run.returncode == 3, (options, run.returncode, run.stderr)
                assert 'certificate' in run.stderr.lower(), (options, run.stderr)
            assert receiver.records == []


def test_tls_options_are_checked_before_anything_is_sent(files, want):
    with tempfile.TemporaryDirectory() as folder:
        c = make_certificates(folder)
        cases = [('http://127.0.0.1:4318', ['--otlp-ca', c['ca.pem']], 'applies to an https:// receiver'),
                 ('https://127.0.0.1:4318', ['--otlp-ca', os.path.join(folder, 'missing.pem')], 'cannot read'),
                 ('https://127.0.0.1:4318', ['--otlp-key', c['client.key']], 'needs --otlp-cert')]
        for url, options, says in cases:
            run = etwdump(url, files, *options)
            assert run.returncode == 1 and says in run.stderr, (options, run.returncode, run.stderr)


def test_a_live_session_followed_by_name_arrives_whole(files, want):
    with tempfile.TemporaryDirectory() as folder:
        env = session_env(folder)
        path = os.path.join(folder, 'live.etl')
        subprocess.run([ETWCTL, 'start', 'OtlpLive', '--mode', 'system-logger,real-time', '--enable-flags',
                        'process,thread', '--file', path], env=env, check=True, stdout=subprocess.DEVNULL)
        try:
            with Receiver() as receiver:
                dump = subprocess.Popen([ETWDUMP, '--otlp', receiver.url, '--otlp-host', 'test-host', '--otlp-service',
                                         'test-service', '--session', 'OtlpLive'], env=env, stderr=subprocess.PIPE,
                                        text=True)
                # The session's backlog (its rundown) reaching the receiver says etwdump is
                # attached; only then does the stop end its feed rather than precede it.
                while not receiver.requests and dump.poll() is None:
                    time.sleep(0.05)
                subprocess.run([ETWCTL, 'stop', 'OtlpLive'], env=env, check=True, stdout=subprocess.DEVNULL)
                stderr = dump.communicate(timeout=300)[1]
        finally:
            subprocess.run([ETWCTL, 'stop', 'OtlpLive'], env=env, capture_output=True)
        assert dump.returncode == 0, stderr
        # A live consumer gets the data buffers as the logger wrote them, in the file's order;
        # the file's header buffer is the file's own.
        live = [w for w in expected([path], order='file') if w['buffer'] != 0]
        assert len(live) > 50
        assert '%d records sent' % len(live) in stderr and '0 failed, 0 dropped' in stderr, stderr
        check_all(receiver, live)


def test_ctrl_c_ends_following_a_session_and_what_was_read_is_sent(files, want):
    with tempfile.TemporaryDirectory() as folder:
        env = session_env(folder)
        subprocess.run([ETWCTL, 'start', 'OtlpCtrlC', '--mode', 'system-logger,real-time', '--enable-flags',
                        'process,thread'], env=env, check=True, stdout=subprocess.DEVNULL)
        try:
            with Receiver() as receiver:
                dump = subprocess.Popen([ETWDUMP, '--otlp', receiver.url, '--session', 'OtlpCtrlC'], env=env,
                                        stderr=subprocess.PIPE, text=True)
                while not receiver.requests and dump.poll() is None:  # attached: its backlog arrives
                    time.sleep(0.05)
                dump.send_signal(signal.SIGINT)
                stderr = dump.communicate(timeout=300)[1]
                assert dump.returncode == 0, (dump.returncode, stderr)
                assert len(receiver.records) > 50
                assert '%d records sent' % len(receiver.records) in stderr, stderr
                assert '0 failed, 0 dropped' in stderr, stderr
        finally:
            subprocess.run([ETWCTL, 'stop', 'OtlpCtrlC'], env=env, capture_output=True)


def test_a_stream_read_back_arrives_whole(files, want):
    server = os.environ.get('OTLP_TEST_NATS_SERVER')
    if not server:
        raise Skip('this build has no NATS (libnats-dev, nats-server)')
    with tempfile.TemporaryDirectory() as folder:
        port = unused_port()
        nats = subprocess.Popen([server, '-js', '-a', '127.0.0.1', '-p', str(port), '-sd', os.path.join(folder, 'js')],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while nats.poll() is None:  # until it listens
                try:
                    socket.create_connection(('127.0.0.1', port)).close()
                    break
                except OSError:
                    time.sleep(0.05)
            assert nats.poll() is None, 'nats-server did not start'
            env = dict(session_env(folder), OPENETW_SPOOL_DIR=os.path.join(folder, 'spool'))
            stream = 'nats://127.0.0.1:%d/OTLPT' % port
            path = os.path.join(folder, 'exported.etl')
            subprocess.run([ETWCTL, 'start', 'OtlpNats', '--mode', 'system-logger', '--enable-flags', 'process,thread',
                            '--file', path, '--export', stream], env=env, check=True, stdout=subprocess.DEVNULL)
            subprocess.run([ETWCTL, 'stop', 'OtlpNats'], env=env, check=True, stdout=subprocess.DEVNULL)
            streamed = expected([stream])
            assert len(streamed) == len(expected([path])) > 50, 'the stream holds the file\'s records'
            with Receiver() as receiver:
                run = etwdump(receiver.url, [stream])
            assert run.returncode == 0, run.stderr
            check_all(receiver, streamed)
            # Followed: the same records (after the 3 s window), then Ctrl-C ends it cleanly.
            with Receiver() as receiver:
                dump = subprocess.Popen([ETWDUMP, '--otlp', receiver.url, '--otlp-host', 'test-host', '--otlp-service',
                                         'test-service', '--follow', stream], env=env, stderr=subprocess.PIPE, text=True)
                deadline = time.time() + 12
                while len(receiver.records) < len(streamed) and time.time() < deadline and dump.poll() is None:
                    time.sleep(0.1)
                dump.send_signal(signal.SIGINT)
                stderr = dump.communicate(timeout=10)[1]
                assert dump.returncode == 0, (dump.returncode, stderr)
                assert '%d records sent' % len(streamed) in stderr and '0 failed, 0 dropped' in stderr, stderr
                check_all(receiver, streamed)
        finally:
            nats.terminate()
            nats.wait()


def main():
    passed = failed = 0
    with tempfile.TemporaryDirectory() as folder:
        files = [written_by_a_session(folder)] + SAMPLES
        want = expected(files)
        for name, test in sorted(globals().items()):
            if not name.startswith('test_'):
                continue
            try:
                test(files, want)
                passed += 1
                print('PASS', name)
            except Skip as why:
                print('SKIP', name, why)
            except Exception:
                failed += 1
                print('FAIL', name)
                traceback.print_exc()
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
