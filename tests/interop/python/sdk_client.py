"""The official Python SDK's client against an A2A agent that follows the demo-skill convention.

    python sdk_client.py --url http://127.0.0.1:PORT --binding jsonrpc|rest|grpc [--webhook URL]

Resolves the agent card from URL, creates the SDK client for the binding from the card (the SDK
picks the interface), runs every operation of the matrix (docs/interop.md) and asserts on what
comes back. With `--webhook http://HOST:PORT` (a running webhook.py) it also sends a task whose
push notifications go to `/webhook/<binding label>` there, and prints a `push-task` record
(`{"record": "push-task", "binding": ..., "task_id": ...}`) for the runner to match with what the
receiver got. Prints one `interop` record per check (common.py); exits 1 if any check failed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid

from collections.abc import AsyncIterator

import grpc
import httpx

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import (
    AgentCard,
    AuthenticationInfo,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    InvalidParamsError,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskNotCancelableError,
    TaskNotFoundError,
    TaskPushNotificationConfig,
    TaskState,
    UnsupportedOperationError,
)

from common import DEMO_SKILLS, expect, record, run_checks

BINDINGS = {'jsonrpc': 'JSONRPC', 'rest': 'HTTP+JSON', 'grpc': 'GRPC'}
LABELS = {binding: label for label, binding in BINDINGS.items()}
TIMEOUT = 30.0

TERMINAL = {
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
}


def user_message(text: str, task_id: str = '', context_id: str = '') -> Message:
    return Message(
        role=Role.ROLE_USER,
        message_id=str(uuid.uuid4()),
        parts=[Part(text=text)],
        task_id=task_id,
        context_id=context_id,
    )


def text_of(parts) -> str:
    return ''.join(p.text for p in parts if p.HasField('text'))


def state_name(state: int) -> str:
    return TaskState.Name(state)


class Checks:
    """The matrix operations, written once with the SDK's `Client`."""

    def __init__(self, card: AgentCard, binding: str, webhook: str | None) -> None:
        self.card = card
        self.binding = binding
        self.webhook = webhook

        def config(streaming: bool) -> ClientConfig:
            return ClientConfig(
                streaming=streaming,
                supported_protocol_bindings=[binding],
                grpc_channel_factory=grpc.aio.insecure_channel,
            )

        # The SDK's Client streams SendMessage whenever the card allows it; a second client with
        # streaming off is how its API exposes the unary SendMessage.
        self.unary = ClientFactory(config(False)).create(card)
        self.streaming = ClientFactory(config(True)).create(card)

    async def close(self) -> None:
        await self.unary.close()
        await self.streaming.close()

    async def send(self, request: SendMessageRequest | str) -> StreamResponse:
        if isinstance(request, str):
            request = SendMessageRequest(message=user_message(request))
        replies = [r async for r in self.unary.send_message(request)]
        expect(len(replies) == 1, f'unary SendMessage gave {len(replies)} replies')
        return replies[0]

    async def send_task(self, request: SendMessageRequest | str) -> Task:
        reply = await self.send(request)
        expect(reply.HasField('task'), f'expected a Task, got {reply}')
        return reply.task

    async def start_wait(self, seconds: int = 30) -> Task:
        task = await self.send_task(
            SendMessageRequest(
                message=user_message(f'wait {seconds}'),
                configuration=SendMessageConfiguration(return_immediately=True),
            )
        )
        expect(task.status.state not in TERMINAL, f'wait task already {state_name(task.status.state)}')
        return task

    async def cancel(self, task_id: str) -> Task:
        return await self.unary.cancel_task(CancelTaskRequest(id=task_id))

    # --- the checks -----------------------------------------------------------------------------

    async def card_resolution(self) -> None:
        card = self.card
        expect(card.name != '', 'card has no name')
        skills = {s.id for s in card.skills}
        expect(DEMO_SKILLS <= skills, f'card skills {sorted(skills)} lack {sorted(DEMO_SKILLS - skills)}')
        expect(card.capabilities.streaming, 'card does not declare streaming')
        expect(card.capabilities.push_notifications, 'card does not declare pushNotifications')
        interfaces = [i for i in card.supported_interfaces if i.protocol_binding == self.binding]
        expect(interfaces, f'no {self.binding} interface in {card.supported_interfaces}')
        expect(
            any(i.protocol_version.startswith('1.') for i in interfaces),
            f'no 1.x protocolVersion on the {self.binding} interfaces',
        )

    async def extended_card(self) -> None:
        expect(self.card.capabilities.extended_agent_card, 'card does not declare extendedAgentCard')
        extended = await self.unary.get_extended_agent_card(GetExtendedAgentCardRequest())
        expect(extended.name == self.card.name, f'extended card name {extended.name!r}')
        expect(
            extended.description.endswith('(extended card)'),
            f'extended card description {extended.description!r}',
        )

    async def send_task_check(self) -> None:
        text = f'hello over {self.binding}'
        task = await self.send_task(text)
        expect(task.id != '' and task.context_id != '', 'task without id or contextId')
        expect(
            task.status.state == TaskState.TASK_STATE_COMPLETED,
            f'state {state_name(task.status.state)}, want COMPLETED',
        )
        expect(len(task.artifacts) == 1, f'{len(task.artifacts)} artifacts, want 1')
        expect(text_of(task.artifacts[0].parts) == text, f'artifact text {text_of(task.artifacts[0].parts)!r}')
        expect(
            any(m.role == Role.ROLE_USER and text_of(m.parts) == text for m in task.history),
            'the user message is not in the history',
        )

    async def send_message_check(self) -> None:
        reply = await self.send('reply pong')
        expect(reply.HasField('message'), f'expected a Message, got {reply}')
        expect(reply.message.role == Role.ROLE_AGENT, f'role {Role.Name(reply.message.role)}')
        expect(text_of(reply.message.parts) == 'pong', f'text {text_of(reply.message.parts)!r}')

    async def return_immediately(self) -> None:
        task = await self.start_wait(30)
        expect(
            task.status.state in (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING),
            f'state {state_name(task.status.state)}, want SUBMITTED or WORKING',
        )
        await self.cancel(task.id)

    async def multi_turn(self) -> None:
        task = await self.send_task('ask')
        expect(
            task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED,
            f'state {state_name(task.status.state)}, want INPUT_REQUIRED',
        )
        expect(
            text_of(task.status.message.parts) == 'What is your name?',
            f'question {text_of(task.status.message.parts)!r}',
        )
        done = await self.send_task(
            SendMessageRequest(message=user_message('Ada', task_id=task.id, context_id=task.context_id))
        )
        expect(done.id == task.id, 'the answer started another task')
        expect(
            done.status.state == TaskState.TASK_STATE_COMPLETED,
            f'state {state_name(done.status.state)}, want COMPLETED',
        )
        texts = [text_of(a.parts) for a in done.artifacts]
        expect('Hello, Ada!' in texts, f'artifacts {texts}')

    async def send_fail(self) -> None:
        task = await self.send_task('fail')
        expect(
            task.status.state == TaskState.TASK_STATE_FAILED,
            f'state {state_name(task.status.state)}, want FAILED',
        )

    async def send_reject(self) -> None:
        task = await self.send_task('reject')
        expect(
            task.status.state == TaskState.TASK_STATE_REJECTED,
            f'state {state_name(task.status.state)}, want REJECTED',
        )

    async def stream(self) -> None:
        request = SendMessageRequest(message=user_message('stream 5'))
        events = [e async for e in self.streaming.send_message(request)]
        expect(events, 'empty stream')
        expect(events[0].HasField('task'), f'first event is not the Task (spec 3.1.2): {events[0]}')
        chunks = [e.artifact_update for e in events if e.HasField('artifact_update')]
        texts = [text_of(c.artifact.parts) for c in chunks]
        expect(texts == [f'chunk {i}\n' for i in range(5)], f'chunks {texts}')
        expect([c.append for c in chunks] == [False, True, True, True, True], 'append flags')
        expect([c.last_chunk for c in chunks] == [False, False, False, False, True], 'lastChunk flags')
        expect(len({c.artifact.artifact_id for c in chunks}) == 1, 'chunks of different artifacts')
        last = events[-1]
        expect(
            last.HasField('status_update')
            and last.status_update.status.state == TaskState.TASK_STATE_COMPLETED,
            f'last event is not the COMPLETED status: {last}',
        )

    async def get_history(self) -> None:
        task = await self.send_task('ask')
        await self.send_task(
            SendMessageRequest(message=user_message('Grace', task_id=task.id, context_id=task.context_id))
        )
        full = await self.unary.get_task(GetTaskRequest(id=task.id))
        users = [text_of(m.parts) for m in full.history if m.role == Role.ROLE_USER]
        expect(users == ['ask', 'Grace'], f'user messages in history {users}')
        one = await self.unary.get_task(GetTaskRequest(id=task.id, history_length=1))
        expect(len(one.history) == 1, f'historyLength=1 gave {len(one.history)} messages')
        expect(one.history[0] == full.history[-1], 'historyLength=1 is not the most recent message')
        none = await self.unary.get_task(GetTaskRequest(id=task.id, history_length=0))
        expect(len(none.history) == 0, f'historyLength=0 gave {len(none.history)} messages')

    async def list_tasks(self) -> None:
        context = str(uuid.uuid4())
        ids = []
        for text in ('one', 'two', 'three', 'fail'):
            task = await self.send_task(SendMessageRequest(message=user_message(text, context_id=context)))
            expect(task.context_id == context, 'the task did not keep the given contextId')
            ids.append(task.id)
        everything = await self.unary.list_tasks(ListTasksRequest(context_id=context))
        expect(everything.total_size == 4, f'totalSize {everything.total_size}, want 4')
        expect(sorted(t.id for t in everything.tasks) == sorted(ids), 'listed ids differ from the created ones')
        expect(everything.next_page_token == '', 'one page but a nextPageToken')
        expect(everything.tasks[0].id == ids[-1], 'not sorted by last update, newest first (spec 3.1.4)')
        expect(all(len(t.artifacts) == 0 for t in everything.tasks), 'artifacts without includeArtifacts')
        failed = await self.unary.list_tasks(
            ListTasksRequest(context_id=context, status=TaskState.TASK_STATE_FAILED)
        )
        expect([t.id for t in failed.tasks] == [ids[-1]], f'status filter gave {[t.id for t in failed.tasks]}')
        first = await self.unary.list_tasks(ListTasksRequest(context_id=context, page_size=3, include_artifacts=True))
        expect(len(first.tasks) == 3, f'page 1 has {len(first.tasks)} tasks, want 3')
        expect(first.next_page_token != '', 'page 1 has no nextPageToken')
        expect(any(len(t.artifacts) == 1 for t in first.tasks), 'includeArtifacts gave no artifacts')
        second = await self.unary.list_tasks(
            ListTasksRequest(context_id=context, page_size=3, page_token=first.next_page_token)
        )
        expect(len(second.tasks) == 1, f'page 2 has {len(second.tasks)} tasks, want 1')
        expect(second.next_page_token == '', 'the last page has a nextPageToken')
        paged = [t.id for t in first.tasks] + [t.id for t in second.tasks]
        expect(sorted(paged) == sorted(ids), 'paging lost or repeated tasks')

    async def cancel_check(self) -> None:
        task = await self.start_wait(30)
        canceled = await self.cancel(task.id)
        expect(
            canceled.status.state == TaskState.TASK_STATE_CANCELED,
            f'CancelTask returned {state_name(canceled.status.state)}',
        )
        again = await self.unary.get_task(GetTaskRequest(id=task.id))
        expect(again.status.state == TaskState.TASK_STATE_CANCELED, 'GetTask after cancel is not CANCELED')

    async def subscribe(self) -> None:
        task = await self.start_wait(30)
        stream: AsyncIterator[StreamResponse] = self.streaming.subscribe(SubscribeToTaskRequest(id=task.id))
        first = await anext(stream)
        expect(first.HasField('task') and first.task.id == task.id, f'first event is not the Task: {first}')
        await self.cancel(task.id)
        rest = [e async for e in stream]
        states = [e.status_update.status.state for e in rest if e.HasField('status_update')]
        expect(
            states and states[-1] == TaskState.TASK_STATE_CANCELED,
            f'status updates after cancel: {[state_name(s) for s in states]}',
        )

    async def push_config(self) -> None:
        task = await self.start_wait(30)
        try:
            created = await self.unary.create_task_push_notification_config(
                TaskPushNotificationConfig(
                    task_id=task.id,
                    url='http://127.0.0.1:9/interop-webhook',
                    token='interop-token',
                    authentication=AuthenticationInfo(scheme='Bearer', credentials='interop-secret'),
                )
            )
            expect(created.id != '', 'the created config has no id')
            expect(created.task_id == task.id, f'created taskId {created.task_id!r}')
            expect(created.url == 'http://127.0.0.1:9/interop-webhook', f'created url {created.url!r}')
            expect(created.token == 'interop-token', f'created token {created.token!r}')
            got = await self.unary.get_task_push_notification_config(
                GetTaskPushNotificationConfigRequest(task_id=task.id, id=created.id)
            )
            expect(got.id == created.id and got.url == created.url, f'get returned {got}')
            expect(got.authentication.scheme == 'Bearer', f'get lost the authentication: {got}')
            listed = await self.unary.list_task_push_notification_configs(
                ListTaskPushNotificationConfigsRequest(task_id=task.id)
            )
            expect([c.id for c in listed.configs] == [created.id], f'list returned {listed}')
            await self.unary.delete_task_push_notification_config(
                DeleteTaskPushNotificationConfigRequest(task_id=task.id, id=created.id)
            )
            after = await self.unary.list_task_push_notification_configs(
                ListTaskPushNotificationConfigsRequest(task_id=task.id)
            )
            expect(len(after.configs) == 0, f'list after delete returned {after}')
        finally:
            await self.cancel(task.id)

    async def stream_message(self) -> None:
        request = SendMessageRequest(message=user_message('reply streamed'))
        events = [e async for e in self.streaming.send_message(request)]
        expect(len(events) == 1, f'{len(events)} events, want exactly one Message (spec 3.1.2)')
        expect(events[0].HasField('message'), f'the event is not a Message: {events[0]}')
        expect(text_of(events[0].message.parts) == 'streamed', f'text {text_of(events[0].message.parts)!r}')

    async def error_terminal_send(self) -> None:
        task = await self.send_task('hello')
        try:
            await self.send(SendMessageRequest(message=user_message('again', task_id=task.id, context_id=task.context_id)))
        except UnsupportedOperationError:
            return
        raise AssertionError('SendMessage to a COMPLETED task succeeded (spec 3.1.1)')

    async def error_subscribe_terminal(self) -> None:
        task = await self.send_task('hello')
        try:
            events = [e async for e in self.streaming.subscribe(SubscribeToTaskRequest(id=task.id))]
        except UnsupportedOperationError:
            return
        raise AssertionError(f'SubscribeToTask of a COMPLETED task gave {len(events)} events (spec 3.1.6)')

    async def error_invalid_params(self) -> None:
        """ListTasks with pageSize 150, the spec's own validation example (6.5)."""
        # The SDK types REST and gRPC errors by their ErrorInfo only: our server sends the BadRequest
        # of spec 10.6 / 11.6 and, like the SDK servers, ErrorInfo INVALID_PARAMS, so the typed
        # error must come back on every binding.
        try:
            await self.unary.list_tasks(ListTasksRequest(page_size=150))
        except InvalidParamsError:
            return
        raise AssertionError('ListTasks with pageSize 150 succeeded (spec 6.5: must be 1..100)')

    async def push_send(self) -> None:
        """SendMessage with an inline push config (spec 3.2.2); the runner checks what the webhook
        receiver got (push-delivery)."""
        task = await self.send_task(
            SendMessageRequest(
                message=user_message('stream 3'),
                configuration=SendMessageConfiguration(
                    task_push_notification_config=TaskPushNotificationConfig(
                        url=f'{self.webhook}/webhook/{LABELS[self.binding]}',
                        token='interop-token',
                        authentication=AuthenticationInfo(scheme='Bearer', credentials='interop-secret'),
                    )
                ),
            )
        )
        expect(
            task.status.state == TaskState.TASK_STATE_COMPLETED,
            f'state {state_name(task.status.state)}, want COMPLETED',
        )
        record('push-task', binding=self.binding, task_id=task.id)

    async def error_task_not_found(self) -> None:
        try:
            await self.unary.get_task(GetTaskRequest(id=f'no-such-task-{uuid.uuid4()}'))
        except TaskNotFoundError:
            return
        raise AssertionError('GetTask of an unknown id succeeded')

    async def error_not_cancelable(self) -> None:
        task = await self.send_task('hello')
        try:
            await self.cancel(task.id)
        except TaskNotCancelableError:
            return
        raise AssertionError('CancelTask of a COMPLETED task succeeded')


def timed(coro_fn):
    async def run() -> None:
        await asyncio.wait_for(coro_fn(), TIMEOUT)

    return run


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--url', required=True, help='base URL of the agent (the card is under it)')
    parser.add_argument('--binding', required=True, choices=sorted(BINDINGS))
    parser.add_argument('--webhook', help='base URL of a push receiver (webhook.py): adds the push-send check')
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
                ('send-return-immediately', timed(checks.return_immediately)),
                ('multi-turn', timed(checks.multi_turn)),
                ('send-fail', timed(checks.send_fail)),
                ('send-reject', timed(checks.send_reject)),
                ('stream', timed(checks.stream)),
                ('stream-message', timed(checks.stream_message)),
                ('get-history', timed(checks.get_history)),
                ('list', timed(checks.list_tasks)),
                ('cancel', timed(checks.cancel_check)),
                ('subscribe', timed(checks.subscribe)),
                ('push-config', timed(checks.push_config)),
                ('error-task-not-found', timed(checks.error_task_not_found)),
                ('error-not-cancelable', timed(checks.error_not_cancelable)),
                ('error-terminal-send', timed(checks.error_terminal_send)),
                ('error-subscribe-terminal', timed(checks.error_subscribe_terminal)),
                ('error-invalid-params', timed(checks.error_invalid_params)),
            ]
            + ([('push-send', timed(checks.push_send))] if args.webhook else []),
        )
    finally:
        await checks.close()


if __name__ == '__main__':
    sys.exit(asyncio.run(main()))
