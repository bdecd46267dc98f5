// Shared helpers for the interop programs written with the official JS SDK (@a2a-js/sdk).
//
// Every program reports what the runner needs as records, one JSON object per line on stdout, the
// type `Record` of tests/interop/records (read strictly: a missing or unknown member is an error).
// Each matrix cell a program checks is one `interop` record:
//
//     {"record":"interop","binding":"GRPC","op":"card","outcome":"pass","detail":""}
//
// (binding as in the card: JSONRPC, HTTP+JSON, GRPC; null for the signed-card cells; outcome pass
// or fail, detail why it failed). `cargo xtask interop` (xtask/src/interop/) collects them into the
// matrix of docs/interop.md; a program exits non-zero when any of its checks failed.

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

/** Prints one record for the runner: `{"record": kind, ...fields}` on one line. */
export function record(kind, fields) {
  console.log(JSON.stringify({ record: kind, ...fields }));
}

/** Prints one matrix cell for the runner (result: pass or fail; detail on one line). */
export function report(binding, op, result, detail = '') {
  record('interop', { binding, op, outcome: result, detail: detail.split(/\s+/).join(' ').trim() });
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
