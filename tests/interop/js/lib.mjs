// Shared helpers for the interop programs written with the official JS SDK (@a2a-js/sdk).
//
// Every program reports each matrix cell it checks as one tab-separated line on stdout:
//
//     INTEROP<TAB>binding<TAB>op<TAB>pass|fail<TAB>detail
//
// (binding as in the card: JSONRPC, HTTP+JSON, GRPC). `cargo xtask interop` (xtask/src/interop.rs) collects these lines
// into the matrix of docs/interop.md; a program exits non-zero when any of its checks failed.

/** The demo-skill convention shared by every agent in the matrix (docs/interop.md). */
export const DEMO_SKILLS = new Set(['echo', 'stream', 'ask', 'wait', 'reply', 'fail', 'reject']);

/** Fails the current check with `what` unless `condition` holds. */
export function expect(condition, what) {
  if (!condition) throw new Error(`check failed: ${what}`);
}

/** The concatenated text of the text parts. */
export function textOf(parts) {
  return (parts ?? [])
    .filter((p) => p.content?.$case === 'text')
    .map((p) => p.content.value)
    .join('');
}

/** Prints one matrix cell for the runner. */
export function report(binding, op, result, detail = '') {
  console.log(['INTEROP', binding, op, result, detail.split(/\s+/).join(' ').trim()].join('\t'));
}

/** Rejects when `promise` has not settled after `ms` milliseconds. */
export async function withTimeout(promise, ms) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every check (all of them, even after a failure), reports each, returns the exit code. */
export async function runChecks(binding, checks) {
  let failed = 0;
  for (const [op, check] of checks) {
    try {
      await check();
      report(binding, op, 'pass');
    } catch (err) {
      failed += 1;
      const detail = `${err?.name ?? 'Error'}: ${err?.message ?? String(err)}`;
      report(binding, op, 'fail', detail);
      console.error(`check ${op} FAILED: ${detail}`);
      if (err?.stack) console.error(err.stack);
    }
  }
  return failed ? 1 : 0;
}
