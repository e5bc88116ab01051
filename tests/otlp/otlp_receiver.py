"""An OTLP/HTTP logs receiver for the tests: a real HTTP/1.1 server on
127.0.0.1 that decodes ExportLogsServiceRequest (protobuf or JSON) with the
Python classes protoc generated from the vendored schema, and answers from a
script (then 200). Every request is logged with its status; only the records
of accepted requests are kept."""
import http.server
import ssl
import threading

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2


class Receiver:
    def __init__(self, answers=(), tls=None):
        """tls: (certificate, key) PEM files to serve https with; optional
        third item, a CA file: clients must then present a certificate it signed."""
        self.answers = list(answers)
        self.requests = []   # (status, content type, records in the body)
        self.headers = []    # each request's headers: {lower-case name: value}
        self.records = []    # LogRecord messages of accepted requests, in order
        self.resources = []  # {key: value} of each accepted request's resource
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers['Content-Length']))
                kind = self.headers['Content-Type']
                request = logs_service_pb2.ExportLogsServiceRequest()
                if kind == 'application/json':
                    json_format.Parse(body.decode('utf-8'), request)
                else:
                    request.ParseFromString(body)
                records = [r for rl in request.resource_logs for sl in rl.scope_logs for r in sl.log_records]
                status = receiver.answers.pop(0) if receiver.answers else 200
                if self.path != '/v1/logs':
                    status = 404
                receiver.requests.append((status, kind, len(records)))
                receiver.headers.append({k.lower(): v for k, v in self.headers.items()})
                if status == 200:
                    receiver.records.extend(records)
                    for rl in request.resource_logs:
                        receiver.resources.append({kv.key: kv.value.string_value for kv in rl.resource.attributes})
                answer = logs_service_pb2.ExportLogsServiceResponse().SerializeToString()
                self.send_response(status)
                self.send_header('Content-Type', 'application/x-protobuf')
                self.send_header('Content-Length', str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        scheme = 'http'
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(tls[0], tls[1])
            if len(tls) > 2:
                context.verify_mode = ssl.CERT_REQUIRED
                context.load_verify_locations(tls[2])
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            scheme = 'https'
        self.url = '%s://127.0.0.1:%d' % (scheme, self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def value_of(any_value):
    """An AnyValue as Python: int, float, str, bool, bytes, list, dict."""
    kind = any_value.WhichOneof('value')
    if kind == 'array_value':
        return [value_of(v) for v in any_value.array_value.values]
    if kind == 'kvlist_value':
        return {kv.key: value_of(kv.value) for kv in any_value.kvlist_value.values}
    return getattr(any_value, kind) if kind else None
