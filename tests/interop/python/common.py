"""Shared helpers for the interop programs written with the official Python SDK (a2a-sdk).

Every program reports what the runner needs as records, one JSON object per line on stdout, the
type `Record` of tests/interop/records (the Rust side reads them strictly: a missing or unknown
member is an error). Each matrix cell a program checks is one `interop` record:

    {"record": "interop", "binding": "GRPC", "op": "card", "outcome": "pass", "detail": ""}

(binding as in the card: JSONRPC, HTTP+JSON, GRPC; null for the signed-card cells, which have
none; outcome pass or fail, detail why it failed). `cargo xtask interop` (xtask/src/interop/)
collects them into the matrix of docs/interop.md; a program exits non-zero when any of its checks
failed.
"""

from __future__ import annotations

import json
import sys
import traceback

from collections.abc import Awaitable, Callable

# The demo-skill convention shared by every agent in the matrix (docs/interop.md): the first word
# of the message text picks the skill.
DEMO_SKILLS = {'echo', 'stream', 'ask', 'wait', 'reply', 'fail', 'reject'}


class CheckFailed(AssertionError):
    """A check saw something other than what the spec (and the demo convention) require."""


def expect(condition: bool, what: str) -> None:
    """Fails the current check with `what` unless `condition` holds."""
    if not condition:
        raise CheckFailed(what)


def record(name: str, /, **fields: object) -> None:
    """Prints one record for the runner: `{"record": name, **fields}` on one line."""
    print(json.dumps({'record': name, **fields}), flush=True)


def report(binding: str | None, op: str, result: str, detail: str = '') -> None:
    """Prints one matrix cell for the runner (result: pass or fail; detail on one line)."""
    record('interop', binding=binding, op=op, outcome=result, detail=' '.join(detail.split()))


async def run_checks(binding: str, checks: list[tuple[str, Callable[[], Awaitable[None]]]]) -> int:
    """Runs every check (all of them, even after a failure), reports each, returns the exit code."""
    failed = 0
    for op, check in checks:
        try:
            await check()
        except Exception as err:  # noqa: BLE001 - every failure becomes a reported cell
            failed += 1
            detail = f'{type(err).__name__}: {err}'
            report(binding, op, 'fail', detail)
            print(f'check {op} FAILED: {detail}', file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
        else:
            report(binding, op, 'pass')
    return 1 if failed else 0
