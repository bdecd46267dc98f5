"""A push-notification receiver for A2A 0.3, parsing every payload with the Python SDK's 0.3 types.

    tests/interop/.venv-v03/bin/python webhook_v03.py

Listens on 127.0.0.1 (a free port) and prints `webhook listening on http://127.0.0.1:PORT` when
ready. In A2A 0.3 a push notification is the Task itself in the 0.3 JSON form (0.3 spec 9.5; what
a2a-sdk 0.3's `BasePushNotificationSender` posts): every `POST /webhook/LABEL` body must be an
object with `kind: "task"` that a2a-sdk 0.3's `Task` model validates (lower-kebab states such as
`completed`, `kind` discriminators on parts). Each notification is recorded as one `push` record
on stdout (common.py), for `cargo xtask interop`:

    {"record": "push", "label": "rest", "task_id": "...", "kind": "task", "state": "completed",
     "text": "chunk 0\\nchunk 1\\nchunk 2\\n", "authorization": null, "token": "..."}

(state as the body spells it; text is the text of all the task's artifacts; authorization and
token the `Authorization` and `X-A2A-Notification-Token` headers, null when not sent). A body that
is not such a Task is answered 400 and recorded as a `push-error` record.
"""

from __future__ import annotations

import json
import sys

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from a2a.types import Task, TextPart

from common import record


def describe(body: object) -> tuple[str, str, str]:
    """(task id, state, artifact text) of a 0.3 push body; raises if it is not a 0.3 Task."""
    if not isinstance(body, dict) or body.get('kind') != 'task':
        kind = body.get('kind') if isinstance(body, dict) else type(body).__name__
        keys = sorted(body) if isinstance(body, dict) else []
        raise ValueError(f'not a 0.3 Task (kind {kind!r}, members {keys})')
    task = Task.model_validate(body)
    text = ''.join(
        part.root.text
        for artifact in task.artifacts or []
        for part in artifact.parts
        if isinstance(part.root, TextPart)
    )
    return task.id, task.status.state.value, text


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the http.server API
        parts = self.path.strip('/').split('/')
        label = parts[1] if len(parts) == 2 and parts[0] == 'webhook' else ''
        body = self.rfile.read(int(self.headers.get('Content-Length') or 0))
        try:
            if not label:
                raise ValueError(f'unexpected path {self.path}')
            task_id, state, text = describe(json.loads(body))
        except Exception as err:  # noqa: BLE001 - every bad payload is recorded and refused
            record('push-error', label=label or None, error=f'{type(err).__name__}: {err}')
            self.send_response(400)
            self.send_header('Content-Length', '0')
            self.end_headers()
            return
        authorization = self.headers.get('Authorization')
        token = self.headers.get('X-A2A-Notification-Token')
        record(
            'push',
            label=label,
            task_id=task_id,
            kind='task',
            state=state,
            text=text,
            authorization=authorization,
            token=token,
        )
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
