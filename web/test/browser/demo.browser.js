// The demo page in a real headless Chromium, served by a real `timesync serve --http` whose clock is
// an hour and 250 ms ahead (libfaketime). The page's own clock is moved too, while it runs.
//
//   node --test web/test/browser/demo.browser.js
//
// Needs the command built with its trait (`swift build --traits CLI`; TIMESYNC_BIN names another
// binary), Chromium and libfaketime (scripts/install-test-deps installs both). TIMESYNC_SCREENSHOT
// names where the countdown's screenshot goes (default: a temporary file).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from './chromium.mjs';

const repository = resolve(fileURLToPath(import.meta.url), '../../../..');
const binary = process.env.TIMESYNC_BIN ?? join(repository, '.build/debug/timesync');
const libfaketime = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/faketime/libfaketime.so.1'].find(existsSync);
const SERVER_AHEAD_MS = 3_600_250; // the server's clock: an hour and 250 ms ahead of this machine's
const scratch = mkdtempSync(join(tmpdir(), 'timesync-browser-'));
const pageClockFile = join(scratch, 'page-clock'); // the page's clock offset, rewritten during the tests
let server;
let browser;
let page;
let origin;

/** This machine's real time in ms, to the microsecond (this process runs under no fake clock). */
const realNow = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Evaluates `expression` in the page until it is truthy; one deadline. */
async function waitUntil(expression, what, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await page.evaluate(expression)) return;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what} (${expression}); the page's last events: ${JSON.stringify(await page.evaluate('timesyncDemo?.events.slice(-5)'))}`);
    await sleep(50);
  }
}

/**
 * One reading from the page, and the server's true time while it was taken: the server's clock is
 * this machine's plus SERVER_AHEAD_MS, and the reading happened between `before` and `after`.
 */
async function measure(on = page) {
  const start = realNow();
  const reading = await on.evaluate(`(() => { const r = timesyncDemo.client.reading();
    return { time: r.time, earliest: r.earliest, latest: r.latest, error: r.error, status: r.status }; })()`);
  const end = realNow();
  const server = { from: start + SERVER_AHEAD_MS, to: end + SERVER_AHEAD_MS };
  const difference = Math.abs(reading.time - (server.from + server.to) / 2);
  return { reading, server, difference, slack: (end - start) / 2 };
}

function assertHolds({ reading, server }) {
  assert.ok(reading.earliest <= server.to && reading.latest >= server.from,
    `the server's time [${server.from}, ${server.to}] lies outside the page's bounds [${reading.earliest}, ${reading.latest}]`);
}

/** The countdown as the page computes it now: seconds to the sale by the client's server time. */
const countdownState = `(() => ({ remaining: timesyncDemo.sale - timesyncDemo.client.now(), shown: document.getElementById('countdown').textContent,
  pageWall: Date.now(), pageMonotonic: performance.timeOrigin + performance.now(), status: timesyncDemo.client.status }))()`;

before(async () => {
  assert.ok(existsSync(binary), `no ${binary}: build it first (swift build --traits CLI) or set TIMESYNC_BIN`);
  assert.ok(libfaketime, 'libfaketime is not installed: run scripts/install-test-deps');
  // The server, its clock shifted; its log says which port it bound.
  // Through the faketime command: a Swift program started directly with libfaketime preloaded
  // loses its arguments.
  server = spawn('faketime', ['-f', `+${SERVER_AHEAD_MS / 1000}s`, binary, 'serve', '--http', '127.0.0.1:0', '--http-cors-origin', '*'], {
    env: { ...process.env, FAKETIME_DONT_FAKE_MONOTONIC: '1' },
    stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  });
  let log = '';
  origin = await new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`timesync serve did not report its port within 15 s; its output: ${log}`)), 15_000);
    const read = (chunk) => {
      log += chunk;
      const match = /address=127\.0\.0\.1:(\d+)/.exec(log);
      if (match && /listening/.test(log)) { clearTimeout(timer); resolvePort(`http://127.0.0.1:${match[1]}`); }
    };
    server.stdout.on('data', read);
    server.stderr.on('data', read);
    server.on('exit', (code) => reject(new Error(`timesync serve exited (${code}): ${log}`)));
  });
  // The browser, its clock movable while it runs: libfaketime rereads the file on every call
  // (FAKETIME_NO_CACHE), and leaves the monotonic clock alone. FAKETIME_FORCE_MONOTONIC_FIX=0 is
  // needed with that: without it Chromium spins at full CPU and never answers.
  writeFileSync(pageClockFile, '+0s\n');
  browser = await launch({
    env: { LD_PRELOAD: libfaketime, FAKETIME_TIMESTAMP_FILE: pageClockFile, FAKETIME_NO_CACHE: '1', FAKETIME_DONT_FAKE_MONOTONIC: '1', FAKETIME_FORCE_MONOTONIC_FIX: '0' },
  });
  page = await browser.newPage(`${origin}/`);
  await waitUntil(`window.timesyncDemo?.client.status === 'synchronized' && timesyncDemo.lastTick !== null`, 'the first synchronization');
});

after(async () => {
  await browser?.close();
  if (server?.exitCode === null) {
    try { process.kill(-server.pid, 'SIGTERM'); } catch { /* gone */ }
    await Promise.race([new Promise((r) => server.once('exit', r)), sleep(3_000)]);
    try { process.kill(-server.pid, 'SIGKILL'); } catch { /* gone */ }
  }
  rmSync(scratch, { recursive: true, force: true });
});

test('the page holds the server\'s time within its bound', async (t) => {
  const file = await (await fetch(`${origin}/timesync.js`)).text();
  assert.match(file, /export class TimeSyncClient/, 'serve --http serves the client file');
  const rows = [];
  for (let i = 0; i < 20; i++) {
    const m = await measure();
    assert.equal(m.reading.status, 'synchronized');
    assertHolds(m);
    assert.ok(m.difference <= m.reading.error + m.slack, `|page − server| ${m.difference} ms > bound ${m.reading.error} ms + ${m.slack} ms`);
    rows.push(m);
    await sleep(50);
  }
  // Server time is known only to within the evaluation's round trip (±slack): a difference inside
  // it cannot be told from zero.
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const f = (ms) => ms.toFixed(3);
  t.diagnostic(`20 readings: |page time − server time| median ${f(median(rows.map((m) => m.difference)))} ms, largest ${f(Math.max(...rows.map((m) => m.difference)))} ms; ` +
    `beyond the ±${f(median(rows.map((m) => m.slack)))} ms (median) to which server time is known: largest ${f(Math.max(0, ...rows.map((m) => m.difference - m.slack)))} ms; ` +
    `bound median ±${f(median(rows.map((m) => m.reading.error)))} ms, largest ±${f(Math.max(...rows.map((m) => m.reading.error)))} ms`);
  assert.match(await page.evaluate(`document.getElementById('countdown').textContent`), /^\d\d:\d\d:\d\d$/);
  const shot = process.env.TIMESYNC_SCREENSHOT ?? join(scratch, 'countdown.png');
  await page.screenshot(shot);
  t.diagnostic(`screenshot: ${shot}`);
});

test('moving the page\'s clock does not move the countdown', async (t) => {
  const before = await page.evaluate(countdownState);
  writeFileSync(pageClockFile, '+7200s\n'); // the page's clock two hours ahead
  await sleep(2_000);
  await waitUntil(`timesyncDemo.client.status === 'synchronized'`, 'the resync after the clock moved');
  const after = await page.evaluate(countdownState);
  const elapsed = after.pageMonotonic - before.pageMonotonic;
  const jumped = after.pageWall - before.pageWall - elapsed;
  assert.ok(Math.abs(jumped - 7_200_000) < 1_000, `the page's Date.now() moved by ${jumped} ms beyond the elapsed time`);
  const counted = before.remaining - after.remaining;
  assert.ok(Math.abs(counted - elapsed) < 50, `the countdown went down by ${counted} ms in ${elapsed} ms`);
  assertHolds(await measure());
  const events = await page.evaluate('timesyncDemo.events.map((e) => e.type)');
  assert.ok(events.includes('suspended'), 'a clock set ahead is taken as a possible stop of the monotonic clock');
  // And back: a clock set back is a jump, and resynced.
  writeFileSync(pageClockFile, '+0s\n');
  await waitUntil(`timesyncDemo.events.some((e) => e.type === 'clockjump')`, 'the clock jump back');
  await waitUntil(`timesyncDemo.client.status === 'synchronized'`, 'the resync after the clock moved back');
  const back = await page.evaluate(countdownState);
  const elapsedBack = back.pageMonotonic - after.pageMonotonic;
  assert.ok(Math.abs(after.remaining - back.remaining - elapsedBack) < 50, 'the countdown went on as if nothing happened');
  assertHolds(await measure());
  t.diagnostic(`page clock +7200 s then back: countdown moved ${counted.toFixed(1)} ms in ${elapsed.toFixed(1)} ms, then ${(after.remaining - back.remaining).toFixed(1)} ms in ${elapsedBack.toFixed(1)} ms; shown ${before.shown} → ${after.shown} → ${back.shown}`);
});

test('hidden and frozen, then shown: the page resynchronizes', async (t) => {
  // Minimizing the window hides the page (CDP has no visibility command); Page.setWebLifecycleState
  // freezes it (its timers held) and makes it active again; restoring the window shows it.
  // What the client guarantees, however late a loaded machine runs the page's timers and replies:
  // once the page runs again it measures afresh, in a sync named for the waking (`resumed`, `resume`
  // or `visible`), even when a sync from before the freeze is still under way (the previous test's
  // resync after its clock jump may be): the waking's resync follows that sync. So the test waits for
  // such a sync, not for any sync that ends after the freeze: a leftover, ending late, is not one.
  const { windowId } = await browser.send('Browser.getWindowForTarget', { targetId: page.targetId });
  await browser.send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'minimized' } });
  await waitUntil(`document.visibilityState === 'hidden'`, 'the page to be hidden');
  const eventsBefore = await page.evaluate('timesyncDemo.events.length');
  await page.send('Page.setWebLifecycleState', { state: 'frozen' });
  const tickBefore = await page.evaluate('timesyncDemo.lastTick.at');
  await sleep(3_000);
  const tickFrozen = await page.evaluate('timesyncDemo.lastTick.at');
  assert.equal(tickFrozen, tickBefore, 'no countdown tick ran while the page was frozen');
  await page.send('Page.setWebLifecycleState', { state: 'active' });
  await browser.send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'normal' } });
  await waitUntil(`document.visibilityState === 'visible'`, 'the page to be shown');
  const since = `timesyncDemo.events.slice(${eventsBefore})`;
  const waking = `(e) => e.type === 'sync' && ['visible', 'resume', 'resumed'].includes(e.reason)`;
  await waitUntil(`${since}.some(${waking})`, 'a resync after the page woke');
  const events = await page.evaluate(`${since}.map((e) => ({ type: e.type, reason: e.reason, by: e.by, gap: e.gap, at: Math.round(e.at) }))`);
  // The page's clock stayed where it was: a freeze of any length is neither a jump nor a pause.
  assert.deepEqual(events.filter((e) => e.type === 'clockjump' || e.type === 'suspended'), [], `the page's events since the freeze: ${JSON.stringify(events)}`);
  const reasons = events.filter((e) => e.type === 'sync').map((e) => e.reason);
  const m = await measure();
  assert.equal(m.reading.status, 'synchronized');
  assertHolds(m);
  t.diagnostic(`resynced (${reasons.join(', ')}); then |page − server| ${m.difference.toFixed(3)} ms (±${m.slack.toFixed(3)}), bound ±${m.reading.error.toFixed(3)} ms`);
});

test('a page on another origin reads the time through CORS, its nonce preflight answered', async (t) => {
  // localhost and 127.0.0.1 are two origins to the browser: the page from one, the time from the other.
  const port = new URL(origin).port;
  const other = await browser.newPage(`http://localhost:${port}/?source=${encodeURIComponent(`http://127.0.0.1:${port}/time`)}`);
  try {
    const deadline = Date.now() + 15_000;
    while (!(await other.evaluate(`window.timesyncDemo?.client.status === 'synchronized'`))) {
      if (Date.now() > deadline) throw new Error(`the cross-origin page did not synchronize: ${JSON.stringify(await other.evaluate('timesyncDemo?.events'))}`);
      await sleep(50);
    }
    assert.equal(await other.evaluate('location.origin'), `http://localhost:${port}`);
    assert.deepEqual(await other.evaluate('timesyncDemo.client.reading().sources'), [`http://127.0.0.1:${port}/time`]);
    assert.deepEqual(await other.evaluate(`timesyncDemo.events.filter((e) => e.type === 'error')`), []);
    const m = await measure(other);
    assertHolds(m);
    t.diagnostic(`cross-origin: |page − server| ${m.difference.toFixed(3)} ms (±${m.slack.toFixed(3)}), bound ±${m.reading.error.toFixed(3)} ms`);
  } finally {
    await other.close();
  }
});
