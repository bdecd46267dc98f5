"""A push-notification receiver that parses every payload with the official Python SDK's types.

    python webhook.py

Listens on 127.0.0.1 (a free port) and prints `webhook listening on http://127.0.0.1:PORT` when
ready. Every `POST /webhook/LABEL` body is parsed strictly (unknown fields are errors) as the SDK's
`StreamResponse` (spec 4.3.3: the push payload is a StreamResponse) and recorded as one `push`
record on stdout (common.py; `Notification` in tests/interop/records), for `cargo xtask interop` to
assert on:

    {"record": "push", "label": "rest", "task_id": "...", "kind": "artifactUpdate", "state": null,
     "text": "chunk 1\\n", "append": true, "last_chunk": false,
     "authorization": "Bearer ...", "token": "..."}

kind is the payload's field (task, message, statusUpdate, artifactUpdate); state the state
(TASK_STATE_...) of a task or status update; text that of an artifact chunk (with its flags) or a
message; authorization and token the `Authorization` and `X-A2A-Notification-Token` headers (null
when not sent). A body that does not parse is answered 400 and recorded as
`{"record": "push-error", "label": ..., "error": ...}` (label null for another path).
"""

from __future__ import annotations

import json
import sys

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import ParseDict

from a2a.types import StreamResponse, TaskState

from common import record

KINDS = {
    'task': 'task',
    'message': 'message',
    'status_update': 'statusUpdate',
    'artifact_update': 'artifactUpdate',
}


def describe(event: StreamResponse) -> dict[str, object]:
    """The `push` record's fields of a parsed payload (task_id, kind, state, text, flags)."""
    field = event.WhichOneof('payload')
    if field == 'task':
        return {'task_id': event.task.id, 'kind': 'task', 'state': TaskState.Name(event.task.status.state)}
    if field == 'status_update':
        update = event.status_update
        state = TaskState.Name(update.status.state)
        return {'task_id': update.task_id, 'kind': 'statusUpdate', 'state': state}
    if field == 'artifact_update':
        update = event.artifact_update
        text = ''.join(p.text for p in update.artifact.parts if p.HasField('text'))
        return {
            'task_id': update.task_id,
            'kind': 'artifactUpdate',
            'text': text,
            'append': update.append,
            'last_chunk': update.last_chunk,
        }
    if field == 'message':
        text = ''.join(p.text for p in event.message.parts if p.HasField('text'))
        return {'task_id': event.message.task_id, 'kind': 'message', 'text': text}
    raise ValueError('the StreamResponse has no payload')


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the http.server API
        parts = self.path.strip('/').split('/')
        label = parts[1] if len(parts) == 2 and parts[0] == 'webhook' else ''
        body = self.rfile.read(int(self.headers.get('Content-Length') or 0))
        try:
            if not label:
                raise ValueError(f'unexpected path {self.path}')
            event = ParseDict(json.loads(body), StreamResponse())
            fields = describe(event)
        except Exception as err:  # noqa: BLE001 - every bad payload is recorded and refused
            record('push-error', label=label or None, error=f'{type(err).__name__}: {err}')
            self.send_response(400)
            self.end_headers()
            return
        authorization = self.headers.get('Authorization')
        token = self.headers.get('X-A2A-Notification-Token')
        record('push', label=label, **fields, authorization=authorization, token=token)
        self.send_response(200)
        self.send_header('Content-Length', '0')
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the http.server API
        print(format % args, file=sys.stderr)


def main() -> None:
    server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    print(f'webhook listening on http://127.0.0.1:{server.server_address[1]}', flush=True)
    server.serve_forever()


if __name__ == '__main__':
    main()
