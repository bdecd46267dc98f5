"""A demo-skill A2A 0.3 agent written with the official Python SDK's 0.3 line (a2a-sdk 0.3.x),
serving every binding that SDK serves.

    tests/interop/.venv-v03/bin/python tests/interop/python/agent_v03.py [--host 127.0.0.1] [--port 0] [--grpc-port 0]

Serves JSON-RPC at /a2a/jsonrpc (Starlette, `A2AStarletteApplication`) and HTTP+JSON under
/a2a/rest (FastAPI, `A2ARESTFastAPIApplication`: `/a2a/rest/v1/...`) on one HTTP port, gRPC on a
second port (`GrpcHandler`), and the 0.3 agent card at /.well-known/agent-card.json (`url` and
`preferredTransport` JSON-RPC, all three in `additionalInterfaces`); port 0 picks free ports. When
it is ready it prints `interop-agent listening on http://HOST:PORT` (the base URL of the card),
then `grpc on HOST:PORT`.

The skills follow the demo-skill convention of docs/interop.md, as agent.py does for the 1.x SDK:
the first word of the message text picks the skill (echo / `stream N` / `ask` then answer /
`wait N` cancelable / `reply TEXT` / `fail` / `reject` / `file` with file parts: one line
`N bytes, sha256 HEX, TYPE` per file with bytes, and the files echoed back). Push notifications are on (the SDK's
in-memory config store and `BasePushNotificationSender`, which posts the Task in 0.3 JSON);
streaming and the authenticated extended card too (over gRPC the SDK's `GetAgentCard` serves the
card its `card_modifier` returns: the extended one).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import hashlib
import logging
import socket
import uuid

import grpc.aio
import httpx
import uvicorn

from a2a.grpc import a2a_pb2_grpc
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2ARESTFastAPIApplication, A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
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
    FilePart,
    FileWithBytes,
    Message,
    Part,
    Role,
    Task,
    TaskState,
    TaskStatus,
    TextPart,
    TransportProtocol,
)

JSONRPC_PATH = '/a2a/jsonrpc'
REST_PATH = '/a2a/rest'
MAX_WAIT_SECONDS = 3600
MAX_CHUNKS = 100_000

logger = logging.getLogger('interop-agent-v03')


def text_of(message: Message | None) -> str:
    if message is None:
        return ''
    return ''.join(p.root.text for p in message.parts if isinstance(p.root, TextPart))


class DemoExecutor(AgentExecutor):
    """The demo-skill convention, written with the 0.3 SDK's executor API."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        if message is None or context.task_id is None or context.context_id is None:
            return
        text = text_of(message)
        words = text.split()
        command = words[0].lower() if words else ''
        rest = ' '.join(words[1:])
        task = context.current_task
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)

        def say(answer: str) -> Message:
            return updater.new_agent_message([Part(root=TextPart(text=answer))])

        # A message continuing an input-required task answers the question.
        if task is not None and task.status.state == TaskState.input_required:
            await updater.start_work()
            greeting = f'Hello, {text or "stranger"}!'
            await updater.add_artifact([Part(root=TextPart(text=greeting))], name='greeting')
            await updater.complete(say(greeting))
            return

        if command == 'reply' and task is None:
            await event_queue.enqueue_event(
                Message(
                    role=Role.agent,
                    message_id=str(uuid.uuid4()),
                    context_id=context.context_id,
                    parts=[Part(root=TextPart(text=rest or 'Hello from the Python SDK 0.3 agent'))],
                )
            )
            return

        if task is None:
            # The Task first, so that a stream starts with it.
            await event_queue.enqueue_event(
                Task(
                    id=context.task_id,
                    context_id=context.context_id,
                    status=TaskStatus(state=TaskState.submitted),
                    history=[message],
                )
            )

        if command == 'stream':
            n = max(1, min(int(rest) if rest.isdigit() else 5, MAX_CHUNKS))
            await updater.start_work(say(f'Streaming {n} chunks'))
            artifact_id = str(uuid.uuid4())
            for i in range(n):
                await updater.add_artifact(
                    [Part(root=TextPart(text=f'chunk {i}\n'))],
                    artifact_id=artifact_id,
                    name='stream',
                    append=i > 0,
                    last_chunk=i + 1 == n,
                )
            await updater.complete()
        elif command == 'ask':
            await updater.requires_input(say('What is your name?'), final=True)
        elif command == 'wait':
            seconds = min(int(rest) if rest.isdigit() else 300, MAX_WAIT_SECONDS)
            await updater.start_work(say(f'Working for up to {seconds} s'))
            # tasks/cancel calls `cancel` below, then cancels this coroutine.
            await asyncio.sleep(seconds)
            await updater.complete(say('Done waiting'))
        elif command == 'fail':
            await updater.failed(say('This task failed on purpose (demo skill `fail`)'))
        elif command == 'reject':
            await updater.reject(say('I will not do that (demo skill `reject`)'))
        elif command == 'file':
            # The SDK hands every binding's file bytes over as base64 text (`FileWithBytes.bytes`);
            # over gRPC and HTTP+JSON it read the proto's bytes field as the UTF-8 of that text.
            files = [
                p.root.file
                for p in message.parts
                if isinstance(p.root, FilePart) and isinstance(p.root.file, FileWithBytes)
            ]
            if not files:
                await updater.failed(say('The file skill reads file parts with bytes; this message has none'))
                return
            lines = []
            for file in files:
                data = base64.b64decode(file.bytes, validate=True)
                lines.append(f'{len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}, {file.mime_type or ""}')
            await updater.start_work()
            echoed = [Part(root=FilePart(file=FileWithBytes(bytes=f.bytes, mime_type=f.mime_type))) for f in files]
            await updater.add_artifact([Part(root=TextPart(text='\n'.join(lines))), *echoed], name='file')
            await updater.complete()
        else:
            await updater.start_work()
            await updater.add_artifact([Part(root=TextPart(text=text))], name='echo')
            await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id or '', context.context_id or '')
        await updater.cancel()


def skill(skill_id: str, name: str, description: str, example: str) -> AgentSkill:
    return AgentSkill(id=skill_id, name=name, description=description, tags=['demo', skill_id], examples=[example])


def agent_card(base_url: str, grpc_address: str) -> AgentCard:
    jsonrpc_url = f'{base_url}{JSONRPC_PATH}'
    return AgentCard(
        name='Python SDK 0.3 interop agent',
        description='The demo-skill convention written with a2a-sdk 0.3; the first word of a message picks the skill.',
        provider=AgentProvider(organization='a2a-rs interop tests', url='https://github.com/a2a-rs-project/a2a'),
        version='1.0.0',
        protocol_version='0.3.0',
        url=jsonrpc_url,
        preferred_transport=TransportProtocol.jsonrpc,
        additional_interfaces=[
            AgentInterface(transport=TransportProtocol.jsonrpc, url=jsonrpc_url),
            AgentInterface(transport=TransportProtocol.http_json, url=f'{base_url}{REST_PATH}'),
            AgentInterface(transport=TransportProtocol.grpc, url=grpc_address),
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        supports_authenticated_extended_card=True,
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[
            skill('echo', 'Echo', 'Completes a task whose artifact is the message text.', 'hello there'),
            skill('stream', 'Stream', 'Streams one artifact in N chunks, then completes.', 'stream 5'),
            skill('ask', 'Multi-turn', 'Asks for your name; the next message completes the task.', 'ask'),
            skill('wait', 'Long-running', 'Works until canceled or N seconds pass.', 'wait 60'),
            skill('reply', 'Direct reply', 'Answers with a Message instead of a Task.', 'reply hi'),
            skill('fail', 'Failure', 'Ends the task failed.', 'fail'),
            skill('reject', 'Rejection', 'Ends the task rejected.', 'reject'),
            skill(
                'file',
                'File digest',
                'Answers `N bytes, sha256 HEX, TYPE` per file part with bytes, and echoes the files.',
                'file',
            ).model_copy(update={'input_modes': ['*/*']}),
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
    extended = card.model_copy(update={'description': card.description + ' (extended card)'})

    push_store = InMemoryPushNotificationConfigStore()
    push_http = httpx.AsyncClient(timeout=10)
    handler = DefaultRequestHandler(
        agent_executor=DemoExecutor(),
        task_store=InMemoryTaskStore(),
        push_config_store=push_store,
        push_sender=BasePushNotificationSender(push_http, push_store),
    )
    # HTTP+JSON: the FastAPI app, its routes under /a2a/rest; JSON-RPC and the well-known card are
    # added to the same app.
    app = A2ARESTFastAPIApplication(agent_card=card, http_handler=handler, extended_agent_card=extended).build(
        rpc_url=REST_PATH
    )
    A2AStarletteApplication(agent_card=card, http_handler=handler, extended_agent_card=extended).add_routes_to_app(
        app, rpc_url=JSONRPC_PATH
    )
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(card, handler, card_modifier=lambda _: extended), grpc_server)
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
