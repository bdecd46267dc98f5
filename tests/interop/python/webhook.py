"""A push-notification receiver that parses every payload with the official Python SDK's types.

    python webhook.py

Listens on 127.0.0.1 (a free port) and prints `webhook listening on http://127.0.0.1:PORT` when
ready. Every `POST /webhook/LABEL` body is parsed strictly (unknown fields are errors) as the SDK's
`StreamResponse` (spec 4.3.3: the push payload is a StreamResponse) and recorded as one
tab-separated line on stdout, for `cargo xtask interop` to assert on:

    PUSH<TAB>label<TAB>task id<TAB>kind<TAB>summary<TAB>Authorization<TAB>X-A2A-Notification-Token

kind is the payload's field (task, message, statusUpdate, artifactUpdate); summary is the state
(TASK_STATE_...) of a task or status update, or the text of an artifact chunk with its flags
(`text|append|lastChunk`, newlines shown as \\n). A body that does not parse is answered 400 and
recorded as `PUSH-ERROR<TAB>label<TAB>error`.
"""

from __future__ import annotations

import json
import sys

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import ParseDict

from a2a.types import StreamResponse, TaskState

KINDS = {
    'task': 'task',
    'message': 'message',
    'status_update': 'statusUpdate',
    'artifact_update': 'artifactUpdate',
}


def clean(text: str) -> str:
    return text.replace('\\', '\\\\').replace('\n', '\\n').replace('\t', '\\t')


def describe(event: StreamResponse) -> tuple[str, str, str]:
    """(task id, kind, summary) of a parsed payload."""
    field = event.WhichOneof('payload')
    if field == 'task':
        return event.task.id, 'task', TaskState.Name(event.task.status.state)
    if field == 'status_update':
        update = event.status_update
        return update.task_id, 'statusUpdate', TaskState.Name(update.status.state)
    if field == 'artifact_update':
        update = event.artifact_update
        text = ''.join(p.text for p in update.artifact.parts if p.HasField('text'))
        flags = f'{"append" if update.append else ""}|{"lastChunk" if update.last_chunk else ""}'
        return update.task_id, 'artifactUpdate', f'{clean(text)}|{flags}'
    if field == 'message':
        text = ''.join(p.text for p in event.message.parts if p.HasField('text'))
        return event.message.task_id, 'message', clean(text)
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
            task_id, kind, summary = describe(event)
        except Exception as err:  # noqa: BLE001 - every bad payload is recorded and refused
            print(f'PUSH-ERROR\t{label or "-"}\t{clean(f"{type(err).__name__}: {err}")}', flush=True)
            self.send_response(400)
            self.end_headers()
            return
        authorization = self.headers.get('Authorization', '')
        token = self.headers.get('X-A2A-Notification-Token', '')
        print(f'PUSH\t{label}\t{task_id}\t{kind}\t{summary}\t{authorization}\t{token}', flush=True)
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
