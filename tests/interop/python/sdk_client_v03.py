"""The official Python SDK's 0.3 line (a2a-sdk 0.3.x) as a client of an A2A agent that follows the
demo-skill convention, speaking A2A 0.3.

    tests/interop/.venv-v03/bin/python sdk_client_v03.py --url http://127.0.0.1:PORT \\
        --binding jsonrpc|rest|grpc [--webhook URL]

Resolves the agent card from URL with the SDK's `A2ACardResolver` (the card must be readable as a
0.3 card), lets the SDK's `ClientFactory` pick the binding's interface from `url` /
`preferredTransport` / `additionalInterfaces`, runs every 0.3 operation of the matrix
(docs/interop.md, "The 0.3 line") and asserts on what comes back. With `--webhook` (a running
webhook_v03.py) it also sends a task whose push notifications go to `/webhook/<label>` there and
prints a `push-task` record for the runner. Prints one `interop` record per check (common.py);
exits 1 if any check failed.

a2a-sdk 0.3's `Client` has no ListTaskPushNotificationConfig or DeleteTaskPushNotificationConfig
(its transports implement set and get only), so the `push-config-list-delete` cell is not run here
(the runner marks it "n/a"). Its REST and gRPC transports do not type A2A errors: REST raises
`A2AClientHTTPError` with the status, gRPC the raw `grpc.aio.AioRpcError`; the error checks assert
the status the SDK's own server sends for the error (`A2AErrorToHttpStatus`, `GrpcHandler`).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import sys
import uuid

import grpc
import httpx

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientHTTPError, A2AClientJSONRPCError
from a2a.client.transports.grpc import GrpcTransport
from a2a.client.transports.jsonrpc import JsonRpcTransport
from a2a.client.transports.rest import RestTransport
from a2a.types import (
    AgentCard,
    FilePart,
    FileWithBytes,
    GetTaskPushNotificationConfigParams,
    Message,
    Part,
    PushNotificationAuthenticationInfo,
    PushNotificationConfig,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
    TaskState,
    TaskStatusUpdateEvent,
    TextPart,
    TransportProtocol,
)

from common import DEMO_SKILLS, expect, record, run_checks

BINDINGS = {'jsonrpc': 'JSONRPC', 'rest': 'HTTP+JSON', 'grpc': 'GRPC'}
LABELS = {binding: label for label, binding in BINDINGS.items()}
TRANSPORTS = {
    'JSONRPC': (TransportProtocol.jsonrpc, JsonRpcTransport),
    'HTTP+JSON': (TransportProtocol.http_json, RestTransport),
    'GRPC': (TransportProtocol.grpc, GrpcTransport),
}
TIMEOUT = 30.0
RESUBSCRIBE_GRACE = 1.0
TERMINAL = {TaskState.completed, TaskState.failed, TaskState.canceled, TaskState.rejected}

# The file of the `file` check, sent as the SDK sends every file: `FileWithBytes.bytes` is its base64
# text, which over HTTP+JSON and gRPC goes into the proto's bytes field as UTF-8 (docs/interop.md,
# "File parts"). UTF-8 text, not binary: the agent's reply carries the task's history, and a2a-sdk
# 0.3 reads every file of a reply with `decode('utf-8')`, which fails on the binary bytes our server
# writes there (0.3 finding e).
FILE = 'A2A interop: a file part \u2713\n'.encode()
FILE_TYPE = 'text/plain'

# What the SDK's own 0.3 server sends for the two errors on the bindings where its client does not
# type errors (a2a-sdk 0.3 `A2AErrorToHttpStatus` and `GrpcHandler.abort_context`). The 0.3 spec
# fixes only the JSON-RPC codes (section 8.2); for gRPC, TaskNotCancelable, the SDK's
# UNIMPLEMENTED and 1.0's FAILED_PRECONDITION (1.0 spec 5.4) are both accepted.
NOT_FOUND = {'JSONRPC': -32001, 'HTTP+JSON': 404, 'GRPC': {grpc.StatusCode.NOT_FOUND}}
NOT_CANCELABLE = {
    'JSONRPC': -32002,
    'HTTP+JSON': 409,
    'GRPC': {grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.UNIMPLEMENTED},
}


def user_message(text: str, task_id: str | None = None, context_id: str | None = None) -> Message:
    return Message(
        role=Role.user,
        message_id=str(uuid.uuid4()),
        parts=[Part(root=TextPart(text=text))],
        task_id=task_id,
        context_id=context_id,
    )


def text_of(parts) -> str:
    return ''.join(p.root.text for p in parts or [] if isinstance(p.root, TextPart))


class Checks:
    """The 0.3 matrix operations, written once with the SDK's `Client`."""

    def __init__(self, card: AgentCard, binding: str, webhook: str | None) -> None:
        self.card = card
        self.binding = binding
        self.webhook = webhook

        # The SDK's Client streams message/send whenever the card allows it; one client with
        # streaming off gives the unary message/send (blocking), one with `polling` the
        # non-blocking one.
        self.unary = ClientFactory(self.config(False)).create(card)
        self.polling = ClientFactory(self.config(False, polling=True)).create(card)
        self.streaming = ClientFactory(self.config(True)).create(card)

    def config(self, streaming: bool, polling: bool = False, push: PushNotificationConfig | None = None) -> ClientConfig:
        return ClientConfig(
            streaming=streaming,
            polling=polling,
            supported_transports=[TRANSPORTS[self.binding][0]],
            use_client_preference=True,
            grpc_channel_factory=grpc.aio.insecure_channel,
            push_notification_configs=[push] if push else [],
        )

    async def close(self) -> None:
        for client in (self.unary, self.polling, self.streaming):
            await client.close()

    async def send(self, message: Message | str, client=None, configuration=None):
        if isinstance(message, str):
            message = user_message(message)
        client = client or self.unary
        replies = [r async for r in client.send_message(message, configuration=configuration)]
        expect(len(replies) == 1, f'unary message/send gave {len(replies)} replies')
        reply = replies[0]
        return reply[0] if isinstance(reply, tuple) else reply

    async def send_task(self, message: Message | str, client=None, configuration=None) -> Task:
        reply = await self.send(message, client, configuration)
        expect(isinstance(reply, Task), f'expected a Task, got {reply!r}')
        return reply

    async def start_wait(self, seconds: int = 30) -> Task:
        task = await self.send_task(f'wait {seconds}', client=self.polling)
        expect(task.status.state not in TERMINAL, f'wait task already {task.status.state.value}')
        return task

    async def cancel(self, task_id: str) -> Task:
        return await self.unary.cancel_task(TaskIdParams(id=task_id))

    async def expect_error(self, call, wanted: dict, what: str) -> None:
        want = wanted[self.binding]
        try:
            result = await call()
        except A2AClientJSONRPCError as err:
            expect(self.binding == 'JSONRPC', f'a JSON-RPC error over {self.binding}')
            expect(err.error.code == want, f'JSON-RPC error code {err.error.code}, want {want} (0.3 spec 8.2)')
            return
        except A2AClientHTTPError as err:
            expect(err.status_code == want, f'HTTP status {err.status_code}, want {want}: {err}')
            return
        except grpc.aio.AioRpcError as err:
            expect(err.code() in want, f'gRPC status {err.code()}, want one of {want}: {err.details()}')
            return
        raise AssertionError(f'{what} succeeded: {result!r}')

    # --- the checks -----------------------------------------------------------------------------

    async def card_resolution(self) -> None:
        card = self.card
        expect(card.name != '', 'card has no name')
        expect(card.protocol_version.startswith('0.3'), f'protocolVersion {card.protocol_version!r}')
        skills = {s.id for s in card.skills}
        expect(DEMO_SKILLS <= skills, f'card skills {sorted(skills)} lack {sorted(DEMO_SKILLS - skills)}')
        expect(card.capabilities.streaming, 'card does not declare streaming')
        expect(card.capabilities.push_notifications, 'card does not declare pushNotifications')
        offered = {card.preferred_transport or 'JSONRPC': card.url}
        offered.update({i.transport: i.url for i in card.additional_interfaces or []})
        expect(self.binding in offered, f'no {self.binding} interface among {offered}')
        _, transport_type = TRANSPORTS[self.binding]
        chosen = type(self.unary._transport)  # noqa: SLF001 - which transport the factory picked
        expect(chosen is transport_type, f'the factory picked {chosen.__name__}')

    async def extended_card(self) -> None:
        expect(
            self.card.supports_authenticated_extended_card,
            'card does not declare supportsAuthenticatedExtendedCard',
        )
        # Client.get_card fetches agent/getAuthenticatedExtendedCard when the card declares it.
        extended = await self.unary.get_card()
        expect(extended.name == self.card.name, f'extended card name {extended.name!r}')
        expect(
            extended.description.endswith('(extended card)'),
            f'extended card description {extended.description!r}',
        )

    async def send_task_check(self) -> None:
        text = f'hello over {self.binding}'
        task = await self.send_task(text)
        expect(task.id != '' and task.context_id != '', 'task without id or contextId')
        expect(task.status.state == TaskState.completed, f'state {task.status.state.value}, want completed')
        expect(len(task.artifacts or []) == 1, f'{len(task.artifacts or [])} artifacts, want 1')
        expect(text_of(task.artifacts[0].parts) == text, f'artifact text {text_of(task.artifacts[0].parts)!r}')
        expect(
            any(m.role == Role.user and text_of(m.parts) == text for m in task.history or []),
            'the user message is not in the history',
        )

    async def send_message_check(self) -> None:
        reply = await self.send('reply pong')
        expect(isinstance(reply, Message), f'expected a Message, got {reply!r}')
        expect(reply.role == Role.agent, f'role {reply.role}')
        expect(text_of(reply.parts) == 'pong', f'text {text_of(reply.parts)!r}')

    async def non_blocking(self) -> None:
        task = await self.start_wait(30)
        expect(
            task.status.state in (TaskState.submitted, TaskState.working),
            f'state {task.status.state.value}, want submitted or working',
        )
        await self.cancel(task.id)

    async def multi_turn(self) -> None:
        task = await self.send_task('ask')
        expect(
            task.status.state == TaskState.input_required,
            f'state {task.status.state.value}, want input-required',
        )
        question = text_of(task.status.message.parts) if task.status.message else None
        expect(question == 'What is your name?', f'question {question!r}')
        done = await self.send_task(user_message('Ada', task_id=task.id, context_id=task.context_id))
        expect(done.id == task.id, 'the answer started another task')
        expect(done.status.state == TaskState.completed, f'state {done.status.state.value}, want completed')
        texts = [text_of(a.parts) for a in done.artifacts or []]
        expect('Hello, Ada!' in texts, f'artifacts {texts}')

    async def ends_in(self, text: str, state: TaskState) -> None:
        task = await self.send_task(text)
        expect(task.status.state == state, f'state {task.status.state.value}, want {state.value}')

    async def stream(self) -> None:
        # The Client gives (task so far, update) pairs: update is None for a Task event. Its task
        # tracker appends chunks to the first chunk's artifact in place, so each chunk's text is
        # taken when it arrives.
        events, texts = [], []
        async for event in self.streaming.send_message(user_message('stream 3')):
            events.append(event)
            if isinstance(event, tuple) and isinstance(event[1], TaskArtifactUpdateEvent):
                texts.append(text_of(event[1].artifact.parts))
        expect(events, 'empty stream')
        expect(isinstance(events[0], tuple) and events[0][1] is None, f'first event is not the Task: {events[0]!r}')
        updates = [update for _, update in events]
        chunks = [u for u in updates if isinstance(u, TaskArtifactUpdateEvent)]
        expect(texts == [f'chunk {i}\n' for i in range(3)], f'chunks {texts}')
        expect([bool(c.append) for c in chunks] == [False, True, True], 'append flags')
        expect([bool(c.last_chunk) for c in chunks] == [False, False, True], 'lastChunk flags')
        expect(len({c.artifact.artifact_id for c in chunks}) == 1, 'chunks of different artifacts')
        last = updates[-1]
        expect(
            isinstance(last, TaskStatusUpdateEvent) and last.status.state == TaskState.completed,
            f'last event is not the completed status: {last!r}',
        )
        expect(last.final, 'the last status update is not final (0.3 spec 7.2.2)')
        finals = [u for u in updates if isinstance(u, TaskStatusUpdateEvent) and u.final]
        expect(len(finals) == 1, f'{len(finals)} status updates marked final')
        task = events[-1][0]
        expect(text_of(task.artifacts[0].parts) == 'chunk 0\nchunk 1\nchunk 2\n', 'the SDK assembled another artifact')

    async def stream_message(self) -> None:
        events = [e async for e in self.streaming.send_message(user_message('reply streamed'))]
        expect(len(events) == 1, f'{len(events)} events, want exactly one Message')
        expect(isinstance(events[0], Message), f'the event is not a Message: {events[0]!r}')
        expect(text_of(events[0].parts) == 'streamed', f'text {text_of(events[0].parts)!r}')

    async def get_history(self) -> None:
        task = await self.send_task('ask')
        await self.send_task(user_message('Grace', task_id=task.id, context_id=task.context_id))
        full = await self.unary.get_task(TaskQueryParams(id=task.id))
        users = [text_of(m.parts) for m in full.history or [] if m.role == Role.user]
        expect(users == ['ask', 'Grace'], f'user messages in history {users}')
        one = await self.unary.get_task(TaskQueryParams(id=task.id, history_length=1))
        expect(len(one.history or []) == 1, f'historyLength=1 gave {len(one.history or [])} messages')
        expect(one.history[0].message_id == full.history[-1].message_id, 'historyLength=1 is not the most recent message')

    async def cancel_check(self) -> None:
        task = await self.start_wait(30)
        canceled = await self.cancel(task.id)
        expect(canceled.status.state == TaskState.canceled, f'tasks/cancel returned {canceled.status.state.value}')
        again = await self.unary.get_task(TaskQueryParams(id=task.id))
        expect(again.status.state == TaskState.canceled, f'tasks/get after cancel is {again.status.state.value}')

    async def resubscribe(self) -> None:
        task = await self.start_wait(30)
        events = []
        first = asyncio.get_running_loop().create_future()

        async def consume() -> None:
            async for event in self.streaming.resubscribe(TaskIdParams(id=task.id)):
                events.append(event)
                if not first.done():
                    first.set_result(None)

        consumer = asyncio.create_task(consume())
        # 0.3 does not say what a resubscription starts with: our server sends the Task (as 1.0
        # does), a2a-sdk 0.3's server nothing until the next event. Cancel once the first event
        # is there, or after a grace period in which the SDK has sent its request.
        await asyncio.wait([first, consumer], timeout=RESUBSCRIBE_GRACE, return_when=asyncio.FIRST_COMPLETED)
        await self.cancel(task.id)
        await consumer
        expect(events, 'no event after tasks/cancel')
        expect(all(t.id == task.id for t, _ in events), 'events of another task')
        statuses = [u for _, u in events if isinstance(u, TaskStatusUpdateEvent)]
        expect(
            statuses and statuses[-1].status.state == TaskState.canceled and statuses[-1].final,
            f'status updates: {[(u.status.state.value, u.final) for u in statuses]}, want canceled (final) last',
        )

    async def push_config(self) -> None:
        task = await self.start_wait(30)
        url = 'http://127.0.0.1:9/interop-webhook'
        # 0.3: the client sets the config id ("set by the client to support multiple callbacks").
        config_id = f'interop-{uuid.uuid4()}'
        try:
            created = await self.unary.set_task_callback(
                TaskPushNotificationConfig(
                    task_id=task.id,
                    push_notification_config=PushNotificationConfig(
                        id=config_id,
                        url=url,
                        token='interop-token',
                        authentication=PushNotificationAuthenticationInfo(schemes=['Bearer'], credentials='interop-secret'),
                    ),
                )
            )
            config = created.push_notification_config
            expect(created.task_id == task.id, f'created taskId {created.task_id!r}')
            expect(config.id == config_id, f'created id {config.id!r}, want {config_id!r}')
            expect(config.url == url, f'created url {config.url!r}')
            expect(config.token == 'interop-token', f'created token {config.token!r}')
            got = await self.unary.get_task_callback(
                GetTaskPushNotificationConfigParams(id=task.id, push_notification_config_id=config.id)
            )
            expect(got.task_id == task.id, f'get returned taskId {got.task_id!r}')
            expect(
                got.push_notification_config.id == config.id and got.push_notification_config.url == url,
                f'get returned {got!r}',
            )
            auth = got.push_notification_config.authentication
            expect(auth is not None and auth.schemes == ['Bearer'], f'get lost the authentication: {got!r}')
        finally:
            await self.cancel(task.id)

    async def error_task_not_found(self) -> None:
        await self.expect_error(
            lambda: self.unary.get_task(TaskQueryParams(id=f'no-such-task-{uuid.uuid4()}')),
            NOT_FOUND,
            'tasks/get of an unknown id',
        )

    async def error_not_cancelable(self) -> None:
        task = await self.send_task('hello')
        await self.expect_error(lambda: self.cancel(task.id), NOT_CANCELABLE, 'tasks/cancel of a completed task')

    async def file_check(self) -> None:
        part = FilePart(file=FileWithBytes(bytes=base64.b64encode(FILE).decode(), mime_type=FILE_TYPE))
        message = Message(
            role=Role.user, message_id=str(uuid.uuid4()), parts=[Part(root=TextPart(text='file')), Part(root=part)]
        )
        task = await self.send_task(message)
        expect(task.status.state == TaskState.completed, f'state {task.status.state.value}, want completed')
        want = f'{len(FILE)} bytes, sha256 {hashlib.sha256(FILE).hexdigest()}, {FILE_TYPE}'
        texts = [text_of(a.parts) for a in task.artifacts or []]
        expect(want in texts, f'artifact texts {texts}, want {want!r}: the agent read other bytes')

    async def push_send(self) -> None:
        """message/send with an inline push config (0.3 spec 7.1.1); the runner checks what the
        webhook receiver got (push-delivery)."""
        config = PushNotificationConfig(
            url=f'{self.webhook}/webhook/{LABELS[self.binding]}',
            token='interop-token',
            authentication=PushNotificationAuthenticationInfo(schemes=['Bearer'], credentials='interop-secret'),
        )
        # A per-call `configuration` with a push config breaks a2a-sdk 0.3.26's REST and gRPC
        # transports (BaseClient.send_message merges it with model_dump/model_copy, which leaves
        # a dict where ToProto wants the model); the client config's push_notification_configs
        # is the SDK's other way to send it, and works on every transport.
        client = ClientFactory(self.config(False, push=config)).create(self.card)
        try:
            task = await self.send_task('stream 3', client=client)
        finally:
            await client.close()
        expect(task.status.state == TaskState.completed, f'state {task.status.state.value}, want completed')
        record('push-task', binding=self.binding, task_id=task.id)


def timed(coro_fn, *args):
    async def run() -> None:
        await asyncio.wait_for(coro_fn(*args), TIMEOUT)

    return run


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--url', required=True, help='base URL of the agent (the card is under it)')
    parser.add_argument('--binding', required=True, choices=sorted(BINDINGS))
    parser.add_argument('--webhook', help='base URL of a push receiver (webhook_v03.py): adds push-send')
    args = parser.parse_args()
    binding = BINDINGS[args.binding]

    async with httpx.AsyncClient() as http:
        card = await A2ACardResolver(http, args.url).get_agent_card()
    checks = Checks(card, binding, args.webhook)
    try:
        return await run_checks(
            binding,
            [
                ('card', timed(checks.card_resolution)),
                ('extended-card', timed(checks.extended_card)),
                ('send-task', timed(checks.send_task_check)),
                ('send-message', timed(checks.send_message_check)),
                ('send-non-blocking', timed(checks.non_blocking)),
                ('multi-turn', timed(checks.multi_turn)),
                ('send-fail', timed(checks.ends_in, 'fail', TaskState.failed)),
                ('send-reject', timed(checks.ends_in, 'reject', TaskState.rejected)),
                ('stream', timed(checks.stream)),
                ('stream-message', timed(checks.stream_message)),
                ('get-history', timed(checks.get_history)),
                ('cancel', timed(checks.cancel_check)),
                ('resubscribe', timed(checks.resubscribe)),
                ('push-config', timed(checks.push_config)),
                ('error-task-not-found', timed(checks.error_task_not_found)),
                ('error-not-cancelable', timed(checks.error_not_cancelable)),
                ('file', timed(checks.file_check)),
            ]
            + ([('push-send', timed(checks.push_send))] if args.webhook else []),
        )
    finally:
        await checks.close()


if __name__ == '__main__':
    sys.exit(asyncio.run(main()))
