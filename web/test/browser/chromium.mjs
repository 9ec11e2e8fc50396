// A tiny, dependency-free driver for headless Chromium, for browser tests.
//
// It talks the Chrome DevTools Protocol (CDP) over a pipe instead of a
// WebSocket: Chromium is started with --remote-debugging-pipe, reads commands
// from its fd 3 and writes replies and events on its fd 4. Each message is
// one JSON object followed by a NUL byte.
//
// Usage:
//   const browser = await launch();
//   const page = await browser.newPage('http://127.0.0.1:8080/');
//   console.log(await page.evaluate('document.title'));
//   await page.screenshot('/tmp/shot.png');
//   await browser.close();
//
// Every wait (command reply, event, process exit) has a single deadline and
// fails with an error that says what was being waited for.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The Debian /usr/bin/chromium is a shell wrapper that adds flags and
// extensions we do not want; prefer the real binary behind it.
const DEFAULT_EXECUTABLE = existsSync('/usr/lib/chromium/chromium')
  ? '/usr/lib/chromium/chromium'
  : '/usr/bin/chromium';

const DEFAULT_ARGS = [
  '--headless=new',
  '--no-sandbox', // we run as root; also lets child processes inherit LD_PRELOAD
  '--disable-gpu',
  '--remote-debugging-pipe',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-sync',
  '--mute-audio',
  '--hide-scrollbars',
  '--window-size=900,600',
];

const COMMAND_TIMEOUT_MS = 15000;

// Start Chromium and return a browser object once the pipe answers.
//   env        extra environment variables (merged over process.env)
//   extraArgs  extra command-line switches
//   executable path to the Chromium binary
//   wrapper    optional argv prefix, e.g. ['faketime', '-f', '+3600s']
export async function launch({ env = {}, extraArgs = [], executable = DEFAULT_EXECUTABLE,
  wrapper = [], timeoutMs = COMMAND_TIMEOUT_MS } = {}) {
  const profileDir = mkdtempSync(join(tmpdir(), 'cdp-profile-'));
  const args = [...DEFAULT_ARGS, `--user-data-dir=${profileDir}`, ...extraArgs, 'about:blank'];
  const [command, ...commandArgs] = [...wrapper, executable, ...args];

  // detached: true puts Chromium (and every helper process it forks) in its
  // own process group, so we can end exactly that group with kill(-pid).
  const child = spawn(command, commandArgs, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
    detached: true,
  });

  // Keep the last few KB of Chromium's own output for error messages.
  let log = '';
  const keepLog = (chunk) => { log = (log + chunk).slice(-4000); };
  child.stdout.on('data', keepLog);
  child.stderr.on('data', keepLog);

  const browser = new Browser(child, profileDir, () => log);
  // Safety net: never leave Chromium running if this Node process exits.
  const killOnExit = () => browser.kill();
  process.on('exit', killOnExit);
  browser._forgetExitHook = () => process.off('exit', killOnExit);

  // The first command doubles as the "browser is ready" check.
  try {
    browser.version = await browser.send('Browser.getVersion', {}, undefined, timeoutMs);
  } catch (error) {
    await browser.close();
    throw new Error(`Chromium did not start: ${error.message}\n--- Chromium output ---\n${log}`);
  }
  return browser;
}

class Browser {
  constructor(child, profileDir, getLog) {
    this.child = child;
    this.pid = child.pid;
    this.profileDir = profileDir;
    this.getLog = getLog;
    this.nextId = 1;
    this.pending = new Map(); // command id -> { resolve, reject, timer }
    this.listeners = new Map(); // event method -> Set of fn(params, sessionId)
    this.exited = false;

    const toChromium = child.stdio[3];
    const fromChromium = child.stdio[4];
    this.writer = toChromium;
    toChromium.on('error', () => {}); // reported through 'exit' instead

    // Split the incoming byte stream on NUL bytes into JSON messages.
    let buffered = Buffer.alloc(0);
    fromChromium.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      let end;
      while ((end = buffered.indexOf(0)) !== -1) {
        const text = buffered.subarray(0, end).toString('utf8');
        buffered = buffered.subarray(end + 1);
        this._dispatch(JSON.parse(text));
      }
    });

    this.exitPromise = new Promise((resolve) => {
      child.on('error', (error) => { // e.g. the executable does not exist
        this.exited = true;
        for (const { reject, timer } of this.pending.values()) {
          clearTimeout(timer);
          reject(new Error(`Could not start Chromium: ${error.message}`));
        }
        this.pending.clear();
        resolve();
      });
      child.on('exit', (code, signal) => {
        this.exited = true;
        const why = `Chromium exited (code ${code}, signal ${signal})`;
        for (const { reject, timer } of this.pending.values()) {
          clearTimeout(timer);
          reject(new Error(`${why}\n${this.getLog()}`));
        }
        this.pending.clear();
        resolve();
      });
    });
  }

  _dispatch(message) {
    if (message.id !== undefined) {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      clearTimeout(waiter.timer);
      if (message.error) {
        waiter.reject(new Error(`${waiter.method} failed: ${message.error.message}` +
          (message.error.data ? ` (${message.error.data})` : '')));
      } else {
        waiter.resolve(message.result);
      }
      return;
    }
    // An event; copy the set so listeners may unsubscribe while running.
    for (const fn of [...(this.listeners.get(message.method) ?? [])]) {
      fn(message.params, message.sessionId);
    }
  }

  // Send one CDP command; resolves with its result. sessionId targets a page.
  send(method, params = {}, sessionId, timeoutMs = COMMAND_TIMEOUT_MS) {
    if (this.exited) return Promise.reject(new Error(`Cannot send ${method}: Chromium has exited`));
    const id = this.nextId++;
    const message = { id, method, params };
    if (sessionId) message.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`Timed out after ${timeoutMs} ms waiting for the reply to ${method}`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer, method });
      this.writer.write(JSON.stringify(message) + '\0');
    });
  }

  // Subscribe to a CDP event; fn(params, sessionId). Returns an unsubscribe function.
  on(method, fn) {
    if (!this.listeners.has(method)) this.listeners.set(method, new Set());
    this.listeners.get(method).add(fn);
    return () => this.listeners.get(method)?.delete(fn);
  }

  // Resolve with the params of the first `method` event for which
  // predicate(params, sessionId) is true. Subscribe before triggering it.
  waitFor(method, predicate = () => true, timeoutMs = COMMAND_TIMEOUT_MS) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`Timed out after ${timeoutMs} ms waiting for event ${method}`));
      }, timeoutMs);
      const off = this.on(method, (params, sessionId) => {
        if (!predicate(params, sessionId)) return;
        clearTimeout(timer);
        off();
        resolve(params);
      });
    });
  }

  // Open a new tab, attach to it, load `url` and wait for its load event.
  async newPage(url = 'about:blank', { timeoutMs = COMMAND_TIMEOUT_MS } = {}) {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    const page = new Page(this, targetId, sessionId);
    await page.send('Page.enable');
    await page.send('Runtime.enable');
    if (url !== 'about:blank') await page.goto(url, { timeoutMs });
    return page;
  }

  // Kill the whole process group right now (no clean shutdown).
  kill() {
    if (this.exited) return;
    try { process.kill(-this.pid, 'SIGKILL'); } catch { /* already gone */ }
  }

  // Ask Chromium to quit; kill its process group if it is still alive after
  // 3 s; then delete the temporary profile directory.
  async close() {
    if (!this.exited) {
      this.send('Browser.close', {}, undefined, 3000).catch(() => {});
      const timedOut = await Promise.race([
        this.exitPromise.then(() => false),
        new Promise((r) => setTimeout(() => r(true), 3000).unref()),
      ]);
      if (timedOut) {
        this.kill();
        await this.exitPromise;
      }
    }
    // Helpers in the group may outlive the main process for a moment.
    try { process.kill(-this.pid, 'SIGKILL'); } catch { /* group is empty */ }
    this._forgetExitHook?.();
    rmSync(this.profileDir, { recursive: true, force: true });
  }
}

class Page {
  constructor(browser, targetId, sessionId) {
    this.browser = browser;
    this.targetId = targetId;
    this.sessionId = sessionId;
  }

  // Send a CDP command to this page's session.
  send(method, params = {}, timeoutMs) {
    return this.browser.send(method, params, this.sessionId, timeoutMs);
  }

  // Subscribe to events from this page only.
  on(method, fn) {
    return this.browser.on(method, (params, sessionId) => {
      if (sessionId === this.sessionId) fn(params);
    });
  }

  waitFor(method, predicate = () => true, timeoutMs) {
    return this.browser.waitFor(method,
      (params, sessionId) => sessionId === this.sessionId && predicate(params), timeoutMs);
  }

  // Navigate and wait for the load event.
  async goto(url, { timeoutMs = COMMAND_TIMEOUT_MS } = {}) {
    // Subscribe before navigating so the event cannot be missed.
    const loaded = this.waitFor('Page.loadEventFired', () => true, timeoutMs);
    loaded.catch(() => {}); // handled below; avoid an unhandled rejection if navigate fails
    const result = await this.send('Page.navigate', { url });
    if (result.errorText) throw new Error(`Navigating to ${url} failed: ${result.errorText}`);
    await loaded.catch((e) => { throw new Error(`${e.message} (loading ${url})`); });
  }

  // Evaluate a JavaScript expression in the page; awaits promises and returns
  // the value as JSON. Throws with the page's error message on exceptions.
  async evaluate(expression, { timeoutMs } = {}) {
    const { result, exceptionDetails } = await this.send('Runtime.evaluate', {
      expression, awaitPromise: true, returnByValue: true,
    }, timeoutMs);
    if (exceptionDetails) {
      const message = exceptionDetails.exception?.description ?? exceptionDetails.text;
      throw new Error(`Page threw while evaluating ${JSON.stringify(expression.slice(0, 80))}: ${message}`);
    }
    return result.value;
  }

  // Save a PNG screenshot of the viewport.
  async screenshot(path) {
    const { data } = await this.send('Page.captureScreenshot', { format: 'png' });
    const png = Buffer.from(data, 'base64');
    writeFileSync(path, png);
    return png;
  }

  async close() {
    await this.browser.send('Target.closeTarget', { targetId: this.targetId });
  }
}
