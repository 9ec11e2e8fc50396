// Experiments that check what headless Chromium can do for time-sync tests.
// Run:  node web/test/browser/experiments.mjs
//
// a. load a page, evaluate, screenshot
// b. make a page hidden + frozen, then visible + active again (CDP recipe)
// c. move the page's wall clock (Date.now) while performance.now keeps counting
//    (libfaketime with an offset file we rewrite mid-test)
// d. cross-origin fetch reading an exposed response header; performance.now
//    resolution, normal and cross-origin isolated

import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch } from './chromium.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const work = mkdtempSync(join(tmpdir(), 'cdp-experiments-'));
let failures = 0;
function check(ok, what) {
  console.log(`  ${ok ? 'PASS' : 'FAIL'} ${what}`);
  if (!ok) failures++;
}

// The test page records lifecycle events into window.__log with both clocks.
const PAGE = `<!doctype html><title>timesync browser test</title>
<h1>timesync browser test</h1>
<script>
window.__log = [];
const log = (event, extra) => __log.push({ event, vis: document.visibilityState,
  perf: Math.round(performance.now()), date: Date.now(), ...extra });
for (const e of ['visibilitychange', 'freeze', 'resume']) document.addEventListener(e, () => log(e));
for (const e of ['focus', 'blur', 'pageshow', 'pagehide']) addEventListener(e, () => log(e));
window.__ticks = 0;                           // setInterval counter: shows whether timers run
setInterval(() => { __ticks++; }, 100);
window.arm = (ms) => { const due = Math.round(performance.now() + ms);   // one-shot timer
  setTimeout(() => log('timeout', { due }), ms); return due; };
window.mark = (label) => { log('mark: ' + label); return __ticks; };
</script>`;

// Start an http server on 127.0.0.1 with an ephemeral port.
function serve(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` }));
  });
}

// Page server. /isolated adds COOP+COEP so the page is crossOriginIsolated.
const pages = await serve((req, res) => {
  const headers = { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' };
  if (req.url === '/isolated') {
    headers['Cross-Origin-Opener-Policy'] = 'same-origin';
    headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
  }
  res.writeHead(200, headers).end(PAGE);
});
// "Time server" on another port, i.e. another origin. It exposes one header
// (X-Server-Time) via CORS and sends a second one (X-Hidden) it does not expose.
const api = await serve((req, res) => {
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers': 'X-Server-Time',
    'X-Server-Time': String(Date.now()),
    'X-Hidden': 'secret',
    'Cross-Origin-Resource-Policy': 'cross-origin',
  }).end(JSON.stringify({ now: Date.now() }));
});

const browser = await launch();
try {
  console.log(`Chromium: ${browser.version.product}, protocol ${browser.version.protocolVersion}`);

  // ---------------------------------------------------------------- a
  console.log('\n(a) load, evaluate, screenshot');
  {
    const page = await browser.newPage(pages.origin + '/');
    const title = await page.evaluate('document.title');
    check(title === 'timesync browser test', `document.title = ${JSON.stringify(title)}`);
    const file = join(work, 'shot.png');
    await page.screenshot(file);
    const bytes = readFileSync(file);
    const isPng = bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    check(statSync(file).size > 0 && isPng, `screenshot is a PNG of ${bytes.length} bytes`);
    await page.close();
  }

  // ---------------------------------------------------------------- b
  console.log('\n(b) hidden + frozen, then shown');
  // Helper: a fresh page plus shortcuts for the commands under test.
  async function lifecyclePage() {
    const page = await browser.newPage(pages.origin + '/');
    const { windowId } = await browser.send('Browser.getWindowForTarget', { targetId: page.targetId });
    return {
      page,
      window: (windowState) => browser.send('Browser.setWindowBounds', { windowId, bounds: { windowState } }),
      lifecycle: (state) => page.send('Page.setWebLifecycleState', { state }),
      mark: (label) => page.evaluate(`mark(${JSON.stringify(label)})`),
      report: async () => {
        await sleep(300);
        const { log, vis } = await page.evaluate('({ log: __log, vis: document.visibilityState })');
        for (const e of log.filter((e) => e.event !== 'pageshow')) {
          console.log(`    t=${String(e.perf).padStart(5)} ms  ${e.event.padEnd(28)} visibilityState=${e.vis}` +
            (e.due ? `  (was due at ${e.due})` : ''));
        }
        await page.close();
        return { log, vis };
      },
    };
  }
  const names = (log) => log.map((e) => e.event).filter((e) => !e.startsWith('mark') && e !== 'pageshow');

  {
    const missing = await browser.send('Emulation.setPageVisibility', { visible: false }).catch((e) => e.message);
    check(/wasn't found/.test(missing), `Emulation.setPageVisibility does not exist: ${missing}`);
  }

  console.log('  Recipe: minimize window, freeze, (2 s), resume, restore window');
  {
    const t = await lifecyclePage();
    await t.window('minimized');                 // -> blur, visibilitychange (hidden)
    await sleep(200);
    await t.page.evaluate('arm(50)');            // timer due in 50 ms...
    await t.lifecycle('frozen');                 // -> freeze
    const ticksAtFreeze = await t.mark('frozen');
    await sleep(2000);
    const ticksAfter2s = await t.mark('2 s later, still frozen');
    await t.lifecycle('active');                 // -> resume (page stays hidden)
    await sleep(200);
    await t.mark('resumed, restoring window');
    await t.window('normal');                    // -> focus, visibilitychange (visible), held timer fires
    const { log, vis } = await t.report();
    check(ticksAtFreeze === ticksAfter2s, `setInterval did not tick while frozen (${ticksAtFreeze} -> ${ticksAfter2s})`);
    const timeout = log.find((e) => e.event === 'timeout');
    const resume = log.find((e) => e.event === 'resume');
    check(timeout && timeout.perf >= resume.perf, `50 ms setTimeout was held until after resume (fired ${timeout?.perf - timeout?.due} ms late)`);
    check(vis === 'visible', `visible again: ${names(log).join(', ')}`);
  }

  console.log('  Recipe: Page.setWebLifecycleState frozen alone (visible page), then active');
  {
    const t = await lifecyclePage();
    await t.lifecycle('frozen');                 // -> blur, visibilitychange (hidden), freeze
    await sleep(500);
    await t.mark('sending active');
    await t.lifecycle('active');                 // -> resume, but the page stays hidden
    await sleep(200);
    await t.mark('sending Page.bringToFront');
    await t.page.send('Page.bringToFront');      // -> focus only; still hidden
    await sleep(200);
    await t.mark('minimize + normal');
    await t.window('minimized');
    await t.window('normal');                    // -> visibilitychange (visible)
    const { log, vis } = await t.report();
    check(vis === 'visible', `events: ${names(log).join(', ')}`);
  }

  console.log('  Recipe: restore window without "active" (does restoring also resume?)');
  {
    const t = await lifecyclePage();
    await t.window('minimized');
    await t.lifecycle('frozen');
    await sleep(300);
    await t.mark('restoring window');
    await t.window('normal');                    // -> focus, resume, visibilitychange (visible)
    const { log } = await t.report();
    check(names(log).includes('resume'), `events: ${names(log).join(', ')}`);
  }

  console.log('  Counter-check: hidden but NOT frozen (timers are only throttled)');
  {
    const t = await lifecyclePage();
    await t.window('minimized');
    await t.page.evaluate('arm(50)');
    await sleep(1500);
    await t.mark('restoring window');
    await t.window('normal');
    const { log } = await t.report();
    const timeout = log.find((e) => e.event === 'timeout');
    check(timeout && timeout.vis === 'hidden', `50 ms timer fired while hidden, ${timeout?.perf - timeout?.due} ms late (1 s throttling)`);
  }

  console.log('  Counter-check: with Emulation.setFocusEmulationEnabled the page cannot be hidden/frozen');
  {
    const t = await lifecyclePage();
    await t.page.send('Emulation.setFocusEmulationEnabled', { enabled: true });
    await t.lifecycle('frozen');
    await sleep(300);
    await t.mark('after frozen');
    await t.lifecycle('active');
    const { log, vis } = await t.report();
    check(vis === 'visible' && !names(log).includes('freeze'), 'no visibilitychange/freeze events (focus emulation keeps the page "captured", i.e. visible)');
  }

  // ---------------------------------------------------------------- d
  console.log('\n(d) cross-origin fetch + performance.now resolution');
  for (const path of ['/', '/isolated']) {
    const page = await browser.newPage(pages.origin + path);
    const result = await page.evaluate(`(async () => {
      const res = await fetch(${JSON.stringify(api.origin + '/time')});
      const body = await res.json();
      // performance.now resolution: smallest nonzero step between successive calls.
      let min = Infinity, steps = 0, last = performance.now();
      const end = last + 200;
      while (last < end) {
        const now = performance.now();
        if (now !== last) { min = Math.min(min, now - last); steps++; }
        last = now;
      }
      return { isolated: crossOriginIsolated, exposed: res.headers.get('X-Server-Time'),
        hidden: res.headers.get('X-Hidden'), body, minStepMs: min, steps };
    })()`);
    console.log(`  page ${path}: crossOriginIsolated=${result.isolated}`);
    check(result.exposed === String(result.body.now) || Number(result.exposed) > 0, `X-Server-Time readable cross-origin: ${result.exposed}`);
    check(result.hidden === null, `X-Hidden (not exposed) reads as ${result.hidden}`);
    console.log(`  performance.now min nonzero step: ${(result.minStepMs * 1000).toFixed(1)} µs (${result.steps} distinct steps in 200 ms)`);
    await page.close();
  }
} finally {
  await browser.close();
}

// ---------------------------------------------------------------- c
console.log('\n(c) move the wall clock under a running Chromium with libfaketime');
{
  const offsetFile = join(work, 'faketime.rc');
  writeFileSync(offsetFile, '+0\n');
  const faked = await launch({
    env: {
      LD_PRELOAD: '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
      FAKETIME_TIMESTAMP_FILE: offsetFile, // offset is re-read from this file...
      FAKETIME_NO_CACHE: '1',              // ...on every call (CACHE_DURATION=1: within 1 s)
      FAKETIME_DONT_FAKE_MONOTONIC: '1',   // leave CLOCK_MONOTONIC (performance.now) alone
      FAKETIME_FORCE_MONOTONIC_FIX: '0',   // REQUIRED with the line above, or Chromium spins at 100% CPU and never answers
    },
  });
  try {
    const page = await faked.newPage(pages.origin + '/');
    // Node runs without libfaketime, so its Date.now() is the real clock; use
    // the midpoint of the round trip to cancel most of the CDP latency.
    const sample = async () => {
      const sent = Date.now();
      const s = await page.evaluate(`({ date: Date.now(), newDate: new Date().getTime(),
        perfWall: performance.timeOrigin + performance.now() })`);
      return { ...s, node: (sent + Date.now()) / 2 };
    };
    const before = await sample();
    writeFileSync(offsetFile, '+3600\n');   // jump one hour ahead
    await sleep(100);
    const after = await sample();
    writeFileSync(offsetFile, '+0\n');
    await sleep(100);
    const back = await sample();
    const show = (label, s) => console.log(`  ${label.padEnd(8)} Date.now-real=${s.date - s.node} ms  ` +
      `(timeOrigin+performance.now)-real=${(s.perfWall - s.node).toFixed(1)} ms  new Date()-Date.now=${s.newDate - s.date} ms`);
    show('+0', before); show('+3600', after); show('back +0', back);
    const jump = (after.date - after.node) - (before.date - before.node);
    const perfJump = (after.perfWall - after.node) - (before.perfWall - before.node);
    check(Math.abs(jump - 3600000) < 50, `Date.now jumped by ${jump} ms`);
    check(Math.abs(perfJump) < 50, `timeOrigin+performance.now moved by ${perfJump.toFixed(1)} ms relative to the real clock`);
    check(Math.abs(after.newDate - after.date) < 5, 'new Date() agrees with Date.now()');
  } finally {
    await faked.close();
  }
}

pages.server.close();
api.server.close();
rmSync(work, { recursive: true, force: true });
console.log(failures ? `\n${failures} check(s) failed` : '\nall checks passed');
process.exitCode = failures ? 1 : 0;
