"""A demo-skill A2A agent written with the official Python SDK (a2a-sdk), serving every binding.

    tests/interop/.venv/bin/python tests/interop/python/agent.py [--host 127.0.0.1] [--port 0] [--grpc-port 0]

Serves JSON-RPC at /a2a/jsonrpc and HTTP+JSON at /a2a/rest on one HTTP port, gRPC on a second port,
and the agent card at /.well-known/agent-card.json; port 0 picks free ports. When it is ready it
prints one line, `interop-agent listening on http://HOST:PORT` (the base URL of the card), then
`grpc on HOST:PORT`.

The skills follow the demo-skill convention of docs/interop.md (the same as the reference server's
demo agent): the first word of the message text picks the skill.

| message       | behaviour                                                                |
|---------------|--------------------------------------------------------------------------|
| anything else | echo: WORKING, one artifact with the text, COMPLETED                     |
| `stream N`    | WORKING, one artifact in N chunks "chunk i\\n" (append, lastChunk), COMPLETED |
| `ask`         | INPUT_REQUIRED "What is your name?"; the next message completes the task  |
|               | with the artifact "Hello, <text>!"                                       |
| `wait N`      | WORKING until canceled or N seconds pass, then COMPLETED                 |
| `reply TEXT`  | a direct Message with TEXT, no task                                      |
| `fail`        | FAILED                                                                   |
| `reject`      | REJECTED                                                                 |

Push notifications are on (the SDK's in-memory config store and its httpx sender, which sends the
`X-A2A-Notification-Token` and `Authorization` headers); loopback webhooks are allowed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import socket
import uuid

import grpc.aio
import httpx
import uvicorn

from starlette.applications import Starlette

from a2a.helpers.proto_helpers import get_message_text
from a2a.server.agent_execution.agent_executor import AgentExecutor
from a2a.server.agent_execution.context import RequestContext
from a2a.server.events.event_queue import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    Message,
    Part,
    Role,
    Task,
    TaskState,
    TaskStatus,
    a2a_pb2_grpc,
)

JSONRPC_PATH = '/a2a/jsonrpc'
REST_PATH = '/a2a/rest'
MAX_WAIT_SECONDS = 3600
MAX_CHUNKS = 100_000

logger = logging.getLogger('interop-agent')


class DemoExecutor(AgentExecutor):
    """The demo-skill convention, written with the SDK's executor API."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        if message is None or context.task_id is None or context.context_id is None:
            return
        text = get_message_text(message, delimiter='')
        words = text.split()
        command = words[0].lower() if words else ''
        rest = ' '.join(words[1:])
        task = context.current_task
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)

        def say(answer: str) -> Message:
            return updater.new_agent_message([Part(text=answer)])

        # A message continuing an input-required task answers the question.
        if task is not None and task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            await updater.start_work()
            greeting = f'Hello, {text or "stranger"}!'
            await updater.add_artifact([Part(text=greeting)], name='greeting')
            await updater.complete(say(greeting))
            return

        if command == 'reply' and task is None:
            await event_queue.enqueue_event(
                Message(
                    role=Role.ROLE_AGENT,
                    message_id=str(uuid.uuid4()),
                    context_id=context.context_id,
                    parts=[Part(text=rest or 'Hello from the Python SDK agent')],
                )
            )
            return

        if task is None:
            # The SDK requires the Task as the first event of a new task (spec 3.1.2).
            await event_queue.enqueue_event(
                Task(
                    id=context.task_id,
                    context_id=context.context_id,
                    status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                    history=[message],
                )
            )

        if command == 'stream':
            n = max(1, min(int(rest) if rest.isdigit() else 5, MAX_CHUNKS))
            await updater.start_work(say(f'Streaming {n} chunks'))
            artifact_id = str(uuid.uuid4())
            for i in range(n):
                await updater.add_artifact(
                    [Part(text=f'chunk {i}\n')],
                    artifact_id=artifact_id,
                    name='stream',
                    append=i > 0,
                    last_chunk=i + 1 == n,
                )
            await updater.complete()
        elif command == 'ask':
            await updater.requires_input(say('What is your name?'))
        elif command == 'wait':
            seconds = min(int(rest) if rest.isdigit() else 300, MAX_WAIT_SECONDS)
            await updater.start_work(say(f'Working for up to {seconds} s'))
            # CancelTask cancels this coroutine, then calls `cancel` below.
            await asyncio.sleep(seconds)
            await updater.complete(say('Done waiting'))
        elif command == 'fail':
            await updater.failed(say('This task failed on purpose (demo skill `fail`)'))
        elif command == 'reject':
            await updater.reject(say('I will not do that (demo skill `reject`)'))
        else:
            await updater.start_work()
            await updater.add_artifact([Part(text=text)], name='echo')
            await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id or '', context.context_id or '')
        await updater.cancel()


def skill(skill_id: str, name: str, description: str, example: str) -> AgentSkill:
    return AgentSkill(
        id=skill_id,
        name=name,
        description=description,
        tags=['demo', skill_id],
        examples=[example],
    )


def agent_card(base_url: str, grpc_address: str) -> AgentCard:
    return AgentCard(
        name='Python SDK interop agent',
        description='The demo-skill convention written with a2a-sdk; the first word of a message picks the skill.',
        provider=AgentProvider(organization='a2a-rs interop tests', url='https://github.com/a2a-rs-project/a2a'),
        version='1.0.0',
        supported_interfaces=[
            AgentInterface(protocol_binding='JSONRPC', protocol_version='1.0', url=f'{base_url}{JSONRPC_PATH}'),
            AgentInterface(protocol_binding='HTTP+JSON', protocol_version='1.0', url=f'{base_url}{REST_PATH}'),
            AgentInterface(protocol_binding='GRPC', protocol_version='1.0', url=grpc_address),
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=True, extended_agent_card=True),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[
            skill('echo', 'Echo', 'Completes a task whose artifact is the message text.', 'hello there'),
            skill('stream', 'Stream', 'Streams one artifact in N chunks, then completes.', 'stream 5'),
            skill('ask', 'Multi-turn', 'Asks for your name; the next message completes the task.', 'ask'),
            skill('wait', 'Long-running', 'Works until canceled or N seconds pass.', 'wait 60'),
            skill('reply', 'Direct reply', 'Answers with a Message instead of a Task.', 'reply hi'),
            skill('fail', 'Failure', 'Ends the task FAILED.', 'fail'),
            skill('reject', 'Rejection', 'Ends the task REJECTED.', 'reject'),
        ],
    )


async def serve(host: str, port: int, grpc_port: int) -> None:
    http_socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    http_socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    http_socket.bind((host, port))
    # Listening before uvicorn starts: connections wait in the backlog, so the URL printed below is
    # usable at once.
    http_socket.listen(128)
    http_port = http_socket.getsockname()[1]

    grpc_server = grpc.aio.server()
    bound_grpc_port = grpc_server.add_insecure_port(f'{host}:{grpc_port}')

    base_url = f'http://{host}:{http_port}'
    card = agent_card(base_url, f'{host}:{bound_grpc_port}')
    extended = AgentCard()
    extended.CopyFrom(card)
    extended.description = card.description + ' (extended card)'

    push_store = InMemoryPushNotificationConfigStore()
    push_http = httpx.AsyncClient(timeout=10)
    handler = DefaultRequestHandler(
        agent_executor=DemoExecutor(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        extended_agent_card=extended,
        push_config_store=push_store,
        push_sender=BasePushNotificationSender(push_http, push_store),
    )
    app = Starlette(
        routes=[
            *create_agent_card_routes(agent_card=card),
            *create_jsonrpc_routes(request_handler=handler, rpc_url=JSONRPC_PATH),
            *create_rest_routes(request_handler=handler, path_prefix=REST_PATH),
        ]
    )
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), grpc_server)
    await grpc_server.start()

    server = uvicorn.Server(uvicorn.Config(app, log_level='warning', lifespan='off'))
    serving = asyncio.create_task(server.serve(sockets=[http_socket]))
    print(f'interop-agent listening on {base_url}', flush=True)
    print(f'grpc on {host}:{bound_grpc_port}', flush=True)
    try:
        await serving
    finally:
        await grpc_server.stop(grace=1)
        await push_http.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, default=0, help='HTTP port for JSON-RPC, REST and the card (0: any)')
    parser.add_argument('--grpc-port', type=int, default=0, help='gRPC port (0: any)')
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.host, args.port, args.grpc_port))


if __name__ == '__main__':
    main()
