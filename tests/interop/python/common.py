"""Shared helpers for the interop programs written with the official Python SDK (a2a-sdk).

Every program reports each matrix cell it checks as one tab-separated line on stdout:

    INTEROP<TAB>binding<TAB>op<TAB>pass|fail<TAB>detail

(binding as in the card: JSONRPC, HTTP+JSON, GRPC). `cargo xtask interop` (xtask/src/interop.rs) collects these lines into
the matrix of docs/interop.md; a program exits non-zero when any of its checks failed.
"""

from __future__ import annotations

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


def report(binding: str, op: str, result: str, detail: str = '') -> None:
    """Prints one matrix cell for the runner."""
    detail = ' '.join(detail.split())
    print(f'INTEROP\t{binding}\t{op}\t{result}\t{detail}', flush=True)


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
