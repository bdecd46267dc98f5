// The console in a real browser (headless Chromium through playwright-core), against a running
// server: `A2A_CONSOLE_URL` (the server's base URL, with `--console` and an API key) and
// `A2A_CONSOLE_KEY` (a key it accepts). Driven by crates/a2a-server/tests/console.rs; exits 0
// when every step passed, else 1 with the step that failed. `A2A_CONSOLE_SCREENSHOT=path` saves a
// screenshot of the chat there (docs/console.png is one). `CHROMIUM` names the browser
// (default /usr/bin/chromium).
import { chromium } from 'playwright-core';

const base = process.env.A2A_CONSOLE_URL;
const key = process.env.A2A_CONSOLE_KEY;
if (!base || !key) {
  console.error('set A2A_CONSOLE_URL and A2A_CONSOLE_KEY');
  process.exit(2);
}
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const timeout = 15_000;

let step = 'starting the browser';
const browser = await chromium.launch({
  executablePath,
  headless: true,
  // Containers run as root without user namespaces.
  args: ['--no-sandbox', '--disable-dev-shm-usage'],
});
const failures = [];
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(timeout);
  page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));

  step = 'the login view is all an unauthenticated caller gets';
  await page.goto(`${base}/console/`);
  await page.locator('#login').waitFor({ state: 'visible' });
  await page.locator('#login-hint').filter({ hasText: 'API key' }).waitFor();
  if (await page.locator('#app').isVisible()) throw new Error('the app is visible before signing in');

  step = 'a wrong key is refused';
  await page.fill('#login-key', `${key}-wrong`);
  await page.click('#login-submit');
  await page.locator('#login-error').filter({ hasText: '401' }).waitFor();
  if (await page.locator('#app').isVisible()) throw new Error('the app opened with a wrong key');

  step = 'the right key opens the console on the agent card and its validation';
  await page.fill('#login-key', key);
  await page.click('#login-submit');
  await page.locator('#app').waitFor({ state: 'visible' });
  await page.locator('#login').waitFor({ state: 'hidden' });
  await page.locator('.agent').first().locator('[data-valid="true"]').waitFor();
  await page.locator('.agent h2').first().filter({ hasText: 'reference agent' }).waitFor();
  // Every tenant's card too, each validated.
  await page.locator('.agent[data-tenant="acme"] [data-valid="true"]').waitFor();

  step = 'chat: `stream 5 50` streams five chunks, then COMPLETED';
  await page.click('#nav button[data-view="chat"]');
  await page.fill('#chat-input', 'stream 5 50');
  await page.click('#chat-send');
  const streamed = page.locator('.task-panel').nth(0);
  await streamed.locator('.timeline [data-state="WORKING"]').first().waitFor();
  await page.waitForFunction(() => document.querySelector('.task-panel')?.dataset.state === 'COMPLETED', null, { timeout });
  const chunks = await streamed.locator('.artifact .chunk').allTextContents();
  if (chunks.length !== 5) throw new Error(`expected 5 chunks, saw ${chunks.length}: ${JSON.stringify(chunks)}`);
  for (let i = 0; i < 5; i++) {
    if (chunks[i].trim() !== `chunk ${i}`) throw new Error(`chunk ${i} is ${JSON.stringify(chunks[i])}`);
  }
  const states = await streamed.locator('.timeline li[data-state]').evaluateAll((items) => items.map((li) => li.dataset.state));
  if (states.at(-1) !== 'COMPLETED' || !states.includes('WORKING')) {
    throw new Error(`the timeline is ${JSON.stringify(states)}`);
  }

  step = 'chat: `ask` asks for input, answered in place, then COMPLETED';
  await page.fill('#chat-input', 'ask');
  await page.click('#chat-send');
  const asked = page.locator('.task-panel').nth(1);
  await asked.locator('.prompt input.answer').waitFor();
  if ((await asked.getAttribute('data-state')) !== 'INPUT_REQUIRED') throw new Error('not INPUT_REQUIRED');
  await asked.locator('.prompt input.answer').fill('Ada');
  await asked.locator('.prompt button[type="submit"]').click();
  await page.waitForFunction(() => document.querySelectorAll('.task-panel')[1]?.dataset.state === 'COMPLETED', null, { timeout });
  await asked.locator('.artifact').filter({ hasText: 'Hello, Ada!' }).waitFor();
  if ((await page.locator('.task-panel').count()) !== 2) throw new Error('the answer opened another task panel');

  step = 'chat: `wait 30` is WORKING until cancelled, then CANCELED';
  await page.fill('#chat-input', 'wait 30');
  await page.click('#chat-send');
  const waiting = page.locator('.task-panel').nth(2);
  await waiting.locator('.timeline [data-state="WORKING"]').first().waitFor();
  await waiting.locator('button.cancel').click();
  await page.waitForFunction(() => document.querySelectorAll('.task-panel')[2]?.dataset.state === 'CANCELED', null, { timeout });

  if (process.env.A2A_CONSOLE_SCREENSHOT) {
    step = 'the screenshot';
    await page.screenshot({ path: process.env.A2A_CONSOLE_SCREENSHOT, fullPage: true });
  }

  step = 'chat over HTTP+JSON: `stream 3` streams three chunks, then COMPLETED';
  const rest = await page.locator('#chat-binding option', { hasText: 'HTTP+JSON 1.0' }).getAttribute('value');
  await page.selectOption('#chat-binding', rest);
  await page.fill('#chat-input', 'stream 3');
  await page.click('#chat-send');
  await page.waitForFunction(() => document.querySelectorAll('.task-panel')[3]?.dataset.state === 'COMPLETED', null, { timeout });
  const restChunks = await page.locator('.task-panel').nth(3).locator('.artifact .chunk').count();
  if (restChunks !== 3) throw new Error(`expected 3 chunks over HTTP+JSON, saw ${restChunks}`);

  step = 'tasks: the list shows the four tasks, filtered by state, with a task detail, in pages';
  await page.click('#nav button[data-view="tasks"]');
  await page.waitForFunction(() => document.querySelectorAll('#task-rows tr').length === 4, null, { timeout });
  await page.selectOption('#filter-state', 'TASK_STATE_CANCELED');
  await page.click('#task-filters button[type="submit"]');
  await page.waitForFunction(() => document.querySelectorAll('#task-rows tr').length === 1, null, { timeout });
  await page.locator('#task-rows tr').first().click();
  await page.locator('#task-detail .history li').filter({ hasText: 'wait 30' }).waitFor();
  await page.locator('#task-detail h3 [data-state="CANCELED"]').waitFor();
  await page.selectOption('#filter-state', '');
  await page.fill('#filter-size', '3');
  await page.click('#task-filters button[type="submit"]');
  await page.waitForFunction(() => document.querySelectorAll('#task-rows tr').length === 3, null, { timeout });
  await page.click('#page-next');
  await page.waitForFunction(() => document.querySelectorAll('#task-rows tr').length === 1, null, { timeout });
  await page.click('#page-prev');
  await page.waitForFunction(() => document.querySelectorAll('#task-rows tr').length === 3, null, { timeout });

  step = 'status: health and the request metrics';
  await page.click('#nav button[data-view="status"]');
  await page.locator('#status-ready').filter({ hasText: 'yes' }).waitFor();
  for (const binding of ['JSONRPC', 'HTTP+JSON']) {
    await page.locator('.requests tr', { hasText: binding }).filter({ hasText: 'SendStreamingMessage' }).first().waitFor();
  }

  step = 'a tenant: its card chosen, a chat over its interface, its own task list';
  const acme = await page.locator('#agent-select option', { hasText: 'tenant acme' }).getAttribute('value');
  await page.selectOption('#agent-select', acme);
  await page.click('#nav button[data-view="chat"]');
  for (const binding of ['JSONRPC 1.0', 'HTTP+JSON 1.0']) {
    const value = await page.locator('#chat-binding option', { hasText: binding }).getAttribute('value');
    await page.selectOption('#chat-binding', value);
    await page.fill('#chat-input', 'stream 2');
    await page.click('#chat-send');
    await page.locator('.task-panel[data-state="COMPLETED"] .chunk').nth(1).waitFor();
    await page.click('#chat-new');
  }
  await page.click('#nav button[data-view="tasks"]');
  await page.waitForFunction(() => document.querySelectorAll('#task-rows tr').length === 2, null, { timeout });

  if (failures.length) throw new Error(failures.join('; '));
  console.log('console test: ok');
} catch (error) {
  console.error(`console test failed at "${step}": ${error?.message ?? error}`);
  if (failures.length) console.error(failures.join('\n'));
  process.exitCode = 1;
} finally {
  await browser.close();
}
