"""A Python gRPC client generated from proto/ (by generate.py, with grpcio-tools) driving an A2A
1.0 server through every operation of `lf.a2a.v1.A2AService`.

    python client.py --url http://127.0.0.1:PORT [--stubs DIR]

`--url` is the server's base URL: the client reads the agent card there and calls the GRPC
interface it advertises. The server must run the reference server's demo agent (its skills:
echo, `stream N`, `ask`, `wait N`, `reply TEXT`, `fail`, `reject`) and allow push notifications
to 127.0.0.1 (`a2a-server --push-allow 127.0.0.0/8`). Every call sends the `a2a-version: 1.0`
metadata. Errors are checked the way a client in any language reads them: the status code, then
the `google.rpc.Status` in the `grpc-status-details-bin` trailer and its `google.rpc.ErrorInfo`
(domain `a2a-protocol.org`, the A2A reason, its metadata).

Prints one `PASS name` or `FAIL name: why` line per check and closes with `N passed, N failed`;
exits non-zero if any check failed.
"""

import argparse
import http.server
import json
import pathlib
import queue
import sys
import threading
import time
import traceback
import urllib.request
import uuid

ARGS = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ARGS.add_argument("--url", required=True, help="the server's base URL (its agent card is read there)")
ARGS.add_argument(
    "--stubs",
    type=pathlib.Path,
    default=pathlib.Path(__file__).resolve().parent.parent / "generated" / "python",
    help="where generate.py wrote the stubs",
)
OPTIONS = ARGS.parse_args()
sys.path.insert(0, str(OPTIONS.stubs))

import grpc  # noqa: E402
from google.rpc import error_details_pb2, status_pb2  # noqa: E402

import a2a_pb2 as pb  # noqa: E402  (generated)
import a2a_pb2_grpc as pb_grpc  # noqa: E402  (generated)

VERSION = (("a2a-version", "1.0"),)
DOMAIN = "a2a-protocol.org"
TIMEOUT = 20
TERMINAL = {pb.TASK_STATE_COMPLETED, pb.TASK_STATE_FAILED, pb.TASK_STATE_CANCELED, pb.TASK_STATE_REJECTED}

CHECKS = []


def check(name):
    def register(function):
        CHECKS.append((name, function))
        return function

    return register


# --- helpers ------------------------------------------------------------------------------------


def state_name(state):
    return pb.TaskState.Name(state)


def user_message(text, task_id="", context_id=""):
    return pb.Message(
        message_id=str(uuid.uuid4()),
        role=pb.ROLE_USER,
        parts=[pb.Part(text=text)],
        task_id=task_id,
        context_id=context_id,
    )


def send_request(text, return_immediately=False, **ids):
    return pb.SendMessageRequest(
        message=user_message(text, **ids),
        configuration=pb.SendMessageConfiguration(
            accepted_output_modes=["text/plain"], return_immediately=return_immediately
        ),
    )


def send(stub, text, **kwargs):
    return stub.SendMessage(send_request(text, **kwargs), metadata=VERSION, timeout=TIMEOUT)


def send_task(stub, text, **kwargs):
    response = send(stub, text, **kwargs)
    assert response.WhichOneof("payload") == "task", f"expected a task, got {response}"
    return response.task


def text_of(parts):
    return "".join(part.text for part in parts)


def assert_state(task, state):
    assert task.status.state == state, f"task {task.id} is {state_name(task.status.state)}, expected {state_name(state)}"


def status_details(error):
    """The google.rpc.Status in the error's grpc-status-details-bin trailer, or None."""
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            return status_pb2.Status.FromString(value)
    return None


def detail(status, message_type):
    for any_detail in status.details:
        message = message_type()
        if any_detail.Unpack(message):
            return message
    return None


def expect_error(call, code, reason, **metadata):
    """Runs `call`, which must fail with `code` and an ErrorInfo of `reason` holding `metadata`;
    returns the decoded google.rpc.Status."""
    try:
        result = call()
    except grpc.RpcError as error:
        assert error.code() == code, f"status {error.code().name} ({error.details()!r}), expected {code.name}"
        status = status_details(error)
        assert status is not None, f"{code.name} without grpc-status-details-bin ({error.details()!r})"
        assert status.code == code.value[0], f"details say code {status.code}, the status {code.name}"
        info = detail(status, error_details_pb2.ErrorInfo)
        assert info is not None, f"no google.rpc.ErrorInfo in the details: {status}"
        assert info.domain == DOMAIN, f"ErrorInfo domain {info.domain!r}, expected {DOMAIN!r}"
        assert info.reason == reason, f"ErrorInfo reason {info.reason!r}, expected {reason!r}"
        for key, value in metadata.items():
            assert info.metadata.get(key) == value, f"ErrorInfo metadata {dict(info.metadata)}, expected {key}={value!r}"
        return status
    raise AssertionError(f"expected {code.name} {reason}, the call succeeded: {result}")


class Webhook:
    """A push-notification receiver on 127.0.0.1 (port 0): every POST's headers and JSON body."""

    def __init__(self):
        received = self.received = queue.Queue()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                received.put((dict(self.headers), body.decode("utf-8", "replace")))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/webhook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, predicate, timeout=15):
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            try:
                headers, body = self.received.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            seen.append(body)
            if predicate(headers, body):
                return headers, body
        raise AssertionError(f"no matching push within {timeout} s; received {seen}")


def wait_until_working(stub, task_id):
    """A `wait` task sent with return_immediately may still be SUBMITTED: poll until WORKING."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        task = stub.GetTask(pb.GetTaskRequest(id=task_id), metadata=VERSION, timeout=TIMEOUT)
        if task.status.state == pb.TASK_STATE_WORKING or time.monotonic() > deadline:
            return task
        time.sleep(0.05)


# --- the checks -------------------------------------------------------------------------------
# Each takes (stub, state); `state` carries what later checks reuse (the echo task).


@check("SendMessage: echo completes with its artifact")
def send_echo(stub, state):
    task = send_task(stub, "hello from a generated Python stub")
    assert_state(task, pb.TASK_STATE_COMPLETED)
    assert task.id and task.context_id, f"task without ids: {task}"
    assert len(task.artifacts) == 1, f"artifacts: {task.artifacts}"
    assert text_of(task.artifacts[0].parts) == "hello from a generated Python stub", task.artifacts
    state["echo"] = task


@check("SendMessage: reply is a direct Message")
def send_reply(stub, state):
    response = send(stub, "reply hi there")
    assert response.WhichOneof("payload") == "message", f"expected a message, got {response}"
    assert response.message.role == pb.ROLE_AGENT, response.message
    assert text_of(response.message.parts) == "hi there", response.message


@check("SendMessage: ask is INPUT_REQUIRED, the next message on the task completes it")
def send_multi_turn(stub, state):
    task = send_task(stub, "ask")
    assert_state(task, pb.TASK_STATE_INPUT_REQUIRED)
    assert text_of(task.status.message.parts) == "What is your name?", task.status
    done = send_task(stub, "Ada", task_id=task.id, context_id=task.context_id)
    assert done.id == task.id, f"the follow-up made task {done.id}, not {task.id}"
    assert_state(done, pb.TASK_STATE_COMPLETED)
    assert text_of(done.artifacts[-1].parts) == "Hello, Ada!", done.artifacts


@check("SendMessage: fail is FAILED, reject is REJECTED")
def send_fail_reject(stub, state):
    assert_state(send_task(stub, "fail"), pb.TASK_STATE_FAILED)
    assert_state(send_task(stub, "reject"), pb.TASK_STATE_REJECTED)


@check("SendStreamingMessage: stream 3 is WORKING, three chunks of one artifact, COMPLETED")
def send_streaming(stub, state):
    events = list(stub.SendStreamingMessage(send_request("stream 3"), metadata=VERSION, timeout=TIMEOUT))
    kinds = [event.WhichOneof("payload") for event in events]
    assert kinds[0] == "task", f"the stream starts with {kinds[0]}, expected the task ({kinds})"
    task_id = events[0].task.id
    chunks = [event.artifact_update for event in events if event.WhichOneof("payload") == "artifact_update"]
    statuses = [event.status_update for event in events if event.WhichOneof("payload") == "status_update"]
    assert all(c.task_id == task_id for c in chunks + statuses), f"events of other tasks: {events}"
    assert len(chunks) == 3, f"{len(chunks)} artifact chunks: {kinds}"
    assert len({c.artifact.artifact_id for c in chunks}) == 1, "the chunks are not of one artifact"
    assert "".join(text_of(c.artifact.parts) for c in chunks) == "chunk 0\nchunk 1\nchunk 2\n", chunks
    assert [c.append for c in chunks] == [False, True, True], [c.append for c in chunks]
    assert [c.last_chunk for c in chunks] == [False, False, True], [c.last_chunk for c in chunks]
    assert pb.TASK_STATE_WORKING in [s.status.state for s in statuses], "no WORKING status"
    assert kinds[-1] == "status_update", f"the stream ends with {kinds[-1]}"
    assert statuses[-1].status.state == pb.TASK_STATE_COMPLETED, statuses[-1]


@check("GetTask: the echo task with its artifact and history")
def get_task(stub, state):
    echo = state["echo"]
    task = stub.GetTask(pb.GetTaskRequest(id=echo.id, history_length=10), metadata=VERSION, timeout=TIMEOUT)
    assert task.id == echo.id and task.context_id == echo.context_id, task
    assert_state(task, pb.TASK_STATE_COMPLETED)
    assert [a.artifact_id for a in task.artifacts] == [a.artifact_id for a in echo.artifacts], task.artifacts
    texts = [text_of(m.parts) for m in task.history if m.role == pb.ROLE_USER]
    assert "hello from a generated Python stub" in texts, f"history: {task.history}"


@check("ListTasks: a context's tasks, paged, filtered by state")
def list_tasks(stub, state):
    first = send_task(stub, "list one")
    ids = {first.id}
    for text in ("list two", "list three"):
        ids.add(send_task(stub, text, context_id=first.context_id).id)
    page = stub.ListTasks(
        pb.ListTasksRequest(context_id=first.context_id, page_size=2), metadata=VERSION, timeout=TIMEOUT
    )
    assert len(page.tasks) == 2 and page.next_page_token, f"first page: {len(page.tasks)} tasks, token {page.next_page_token!r}"
    assert page.total_size == 3, f"total_size {page.total_size}"
    rest = stub.ListTasks(
        pb.ListTasksRequest(context_id=first.context_id, page_size=2, page_token=page.next_page_token),
        metadata=VERSION,
        timeout=TIMEOUT,
    )
    assert len(rest.tasks) == 1 and not rest.next_page_token, f"last page: {len(rest.tasks)} tasks, token {rest.next_page_token!r}"
    assert {t.id for t in page.tasks} | {t.id for t in rest.tasks} == ids, "the pages are not the three tasks"
    none = stub.ListTasks(
        pb.ListTasksRequest(context_id=first.context_id, status=pb.TASK_STATE_WORKING), metadata=VERSION, timeout=TIMEOUT
    )
    assert len(none.tasks) == 0, f"WORKING filter returned {[state_name(t.status.state) for t in none.tasks]}"


@check("CancelTask: a WORKING task becomes CANCELED")
def cancel_task(stub, state):
    task = send_task(stub, "wait 60", return_immediately=True)
    assert task.status.state not in TERMINAL, f"wait 60 is already {state_name(task.status.state)}"
    assert_state(wait_until_working(stub, task.id), pb.TASK_STATE_WORKING)
    canceled = stub.CancelTask(pb.CancelTaskRequest(id=task.id), metadata=VERSION, timeout=TIMEOUT)
    assert canceled.id == task.id, canceled
    assert_state(canceled, pb.TASK_STATE_CANCELED)
    again = stub.GetTask(pb.GetTaskRequest(id=task.id), metadata=VERSION, timeout=TIMEOUT)
    assert_state(again, pb.TASK_STATE_CANCELED)


@check("SubscribeToTask: the task, then its events until CANCELED")
def subscribe(stub, state):
    task = send_task(stub, "wait 60", return_immediately=True)
    wait_until_working(stub, task.id)
    stream = stub.SubscribeToTask(pb.SubscribeToTaskRequest(id=task.id), metadata=VERSION, timeout=TIMEOUT)
    first = next(stream)
    assert first.WhichOneof("payload") == "task" and first.task.id == task.id, f"first event: {first}"
    assert_state(first.task, pb.TASK_STATE_WORKING)
    stub.CancelTask(pb.CancelTaskRequest(id=task.id), metadata=VERSION, timeout=TIMEOUT)
    rest = list(stream)
    assert rest, "the stream ended without an event after the cancel"
    last = rest[-1]
    assert last.WhichOneof("payload") == "status_update", f"last event: {last}"
    assert last.status_update.task_id == task.id, last
    assert last.status_update.status.state == pb.TASK_STATE_CANCELED, last


@check("Create/Get/List/DeleteTaskPushNotificationConfig, and the push arrives")
def push_configs(stub, state):
    webhook = Webhook()
    task = send_task(stub, "wait 60", return_immediately=True)
    created = stub.CreateTaskPushNotificationConfig(
        pb.TaskPushNotificationConfig(
            task_id=task.id,
            url=webhook.url,
            token="stubs-token",
            authentication=pb.AuthenticationInfo(scheme="Bearer", credentials="stubs-secret"),
        ),
        metadata=VERSION,
        timeout=TIMEOUT,
    )
    assert created.id, f"the created config has no id: {created}"
    assert created.task_id == task.id and created.url == webhook.url, created
    got = stub.GetTaskPushNotificationConfig(
        pb.GetTaskPushNotificationConfigRequest(task_id=task.id, id=created.id), metadata=VERSION, timeout=TIMEOUT
    )
    assert (got.id, got.url, got.token) == (created.id, webhook.url, "stubs-token"), got
    listed = stub.ListTaskPushNotificationConfigs(
        pb.ListTaskPushNotificationConfigsRequest(task_id=task.id), metadata=VERSION, timeout=TIMEOUT
    )
    assert [c.id for c in listed.configs] == [created.id], listed

    stub.CancelTask(pb.CancelTaskRequest(id=task.id), metadata=VERSION, timeout=TIMEOUT)
    headers, body = webhook.wait_for(lambda h, b: task.id in b and "TASK_STATE_CANCELED" in b)
    headers = {k.lower(): v for k, v in headers.items()}
    assert headers.get("x-a2a-notification-token") == "stubs-token", f"push headers: {headers}"
    assert headers.get("authorization") == "Bearer stubs-secret", f"push headers: {headers}"
    json.loads(body)

    stub.DeleteTaskPushNotificationConfig(
        pb.DeleteTaskPushNotificationConfigRequest(task_id=task.id, id=created.id), metadata=VERSION, timeout=TIMEOUT
    )
    after = stub.ListTaskPushNotificationConfigs(
        pb.ListTaskPushNotificationConfigsRequest(task_id=task.id), metadata=VERSION, timeout=TIMEOUT
    )
    assert not after.configs, f"still listed after delete: {after}"
    # The server answers an unknown config of a known task with TASK_NOT_FOUND (naming the task).
    expect_error(
        lambda: stub.GetTaskPushNotificationConfig(
            pb.GetTaskPushNotificationConfigRequest(task_id=task.id, id=created.id), metadata=VERSION, timeout=TIMEOUT
        ),
        grpc.StatusCode.NOT_FOUND,
        "TASK_NOT_FOUND",
        taskId=task.id,
    )
    webhook.server.shutdown()


@check("GetExtendedAgentCard: the extended card, with its gRPC interface")
def extended_card(stub, state):
    card = stub.GetExtendedAgentCard(pb.GetExtendedAgentCardRequest(), metadata=VERSION, timeout=TIMEOUT)
    assert card.name and card.description.endswith("(extended card)"), f"card: {card.name!r} {card.description!r}"
    bindings = {i.protocol_binding for i in card.supported_interfaces}
    assert "GRPC" in bindings, f"interfaces: {bindings}"
    assert card.skills, "the card lists no skills"


@check("error: GetTask of an unknown task is NOT_FOUND / TASK_NOT_FOUND with its taskId")
def error_task_not_found(stub, state):
    unknown = f"no-such-task-{uuid.uuid4()}"
    expect_error(
        lambda: stub.GetTask(pb.GetTaskRequest(id=unknown), metadata=VERSION, timeout=TIMEOUT),
        grpc.StatusCode.NOT_FOUND,
        "TASK_NOT_FOUND",
        taskId=unknown,
    )


@check("error: CancelTask of a COMPLETED task is FAILED_PRECONDITION / TASK_NOT_CANCELABLE")
def error_not_cancelable(stub, state):
    echo = state["echo"]
    expect_error(
        lambda: stub.CancelTask(pb.CancelTaskRequest(id=echo.id), metadata=VERSION, timeout=TIMEOUT),
        grpc.StatusCode.FAILED_PRECONDITION,
        "TASK_NOT_CANCELABLE",
        taskId=echo.id,
        state="TASK_STATE_COMPLETED",
    )


@check("error: SubscribeToTask of a finished task is FAILED_PRECONDITION / UNSUPPORTED_OPERATION")
def error_subscribe_terminal(stub, state):
    echo = state["echo"]
    expect_error(
        lambda: list(stub.SubscribeToTask(pb.SubscribeToTaskRequest(id=echo.id), metadata=VERSION, timeout=TIMEOUT)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "UNSUPPORTED_OPERATION",
    )


@check("error: a push config of an unknown task is NOT_FOUND / TASK_NOT_FOUND")
def error_push_unknown_task(stub, state):
    unknown = f"no-such-task-{uuid.uuid4()}"
    expect_error(
        lambda: stub.ListTaskPushNotificationConfigs(
            pb.ListTaskPushNotificationConfigsRequest(task_id=unknown), metadata=VERSION, timeout=TIMEOUT
        ),
        grpc.StatusCode.NOT_FOUND,
        "TASK_NOT_FOUND",
        taskId=unknown,
    )


@check("error: a message without parts is INVALID_ARGUMENT / INVALID_PARAMS with a BadRequest")
def error_invalid_params(stub, state):
    request = pb.SendMessageRequest(message=pb.Message(message_id=str(uuid.uuid4()), role=pb.ROLE_USER))
    status = expect_error(
        lambda: stub.SendMessage(request, metadata=VERSION, timeout=TIMEOUT),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_PARAMS",
    )
    bad_request = detail(status, error_details_pb2.BadRequest)
    assert bad_request is not None, f"no google.rpc.BadRequest in the details: {status}"
    fields = [v.field for v in bad_request.field_violations]
    assert any("parts" in f for f in fields), f"the violations do not name the parts: {fields}"


@check("error: a push config to a private address is INVALID_ARGUMENT / INVALID_PARAMS (SSRF policy)")
def error_push_destination(stub, state):
    echo = state["echo"]
    status = expect_error(
        lambda: stub.CreateTaskPushNotificationConfig(
            pb.TaskPushNotificationConfig(task_id=echo.id, url="http://10.1.2.3/webhook"), metadata=VERSION, timeout=TIMEOUT
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_PARAMS",
    )
    bad_request = detail(status, error_details_pb2.BadRequest)
    assert bad_request is not None and [v.field for v in bad_request.field_violations] == ["url"], status


@check("error: an unsupported output mode is INVALID_ARGUMENT / CONTENT_TYPE_NOT_SUPPORTED")
def error_content_type(stub, state):
    request = send_request("hello")
    request.message.parts[0].CopyFrom(pb.Part(raw=b"x", media_type="image/png"))
    del request.configuration.accepted_output_modes[:]
    request.configuration.accepted_output_modes.append("image/png")
    expect_error(
        lambda: stub.SendMessage(request, metadata=VERSION, timeout=TIMEOUT),
        grpc.StatusCode.INVALID_ARGUMENT,
        "CONTENT_TYPE_NOT_SUPPORTED",
        mediaType="image/png",
    )


@check("error: a call without a2a-version (A2A 0.3) is FAILED_PRECONDITION / VERSION_NOT_SUPPORTED")
def error_no_version(stub, state):
    expect_error(
        lambda: stub.GetTask(pb.GetTaskRequest(id=state["echo"].id), timeout=TIMEOUT),
        grpc.StatusCode.FAILED_PRECONDITION,
        "VERSION_NOT_SUPPORTED",
        supportedVersions="1.0",
    )


@check("a2a-extensions metadata: an extension the agent does not know is ignored")
def extensions_metadata(stub, state):
    metadata = VERSION + (("a2a-extensions", "https://example.com/ext/unknown/v1"),)
    task = stub.GetTask(pb.GetTaskRequest(id=state["echo"].id), metadata=metadata, timeout=TIMEOUT)
    assert_state(task, pb.TASK_STATE_COMPLETED)


@check("error: a2a-version 9.9 is FAILED_PRECONDITION / VERSION_NOT_SUPPORTED")
def error_version(stub, state):
    expect_error(
        lambda: stub.GetTask(pb.GetTaskRequest(id="any"), metadata=(("a2a-version", "9.9"),), timeout=TIMEOUT),
        grpc.StatusCode.FAILED_PRECONDITION,
        "VERSION_NOT_SUPPORTED",
        version="9.9",
    )


# --- running ------------------------------------------------------------------------------------


def grpc_target(base_url):
    """The host:port of the GRPC interface (protocol version 1.0) the agent card advertises."""
    card_url = base_url.rstrip("/") + "/.well-known/agent-card.json"
    with urllib.request.urlopen(card_url, timeout=TIMEOUT) as response:
        card = json.load(response)
    for interface in card.get("supportedInterfaces", []):
        if interface.get("protocolBinding") == "GRPC" and interface.get("protocolVersion", "").startswith("1."):
            url = interface["url"]
            return url.split("://", 1)[-1].rstrip("/")
    raise AssertionError(f"the agent card at {card_url} advertises no GRPC 1.x interface")


def main():
    passed = failed = 0
    try:
        target = grpc_target(OPTIONS.url)
        print(f"PASS agent card advertises a GRPC 1.0 interface ({target})")
        passed += 1
    except Exception as error:  # noqa: BLE001
        print(f"FAIL agent card advertises a GRPC 1.0 interface: {error}")
        print(f"{passed} passed, {failed + len(CHECKS) + 1} failed")
        return 1
    state = {}
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.A2AServiceStub(channel)
        for name, function in CHECKS:
            try:
                function(stub, state)
            except Exception as error:  # noqa: BLE001
                failed += 1
                if isinstance(error, grpc.RpcError):
                    why = f"unexpected gRPC error {error.code().name}: {error.details()}"
                elif isinstance(error, AssertionError):
                    why = str(error)
                else:
                    why = f"{type(error).__name__}: {error}"
                    traceback.print_exc()
                # One line, even for printed protobuf messages.
                print(f"FAIL {name}: {' '.join(why.split())}")
            else:
                passed += 1
                print(f"PASS {name}")
            sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
