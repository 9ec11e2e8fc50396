// A simulated world for the client's tests: a device whose monotonic and wall clocks the test moves,
// timers that fire on the monotonic clock, and servers on a simulated network. Nothing sleeps: the
// test advances time and every timer due runs in order.

export class World {
  constructor({ start = Date.UTC(2026, 10, 26, 12, 0, 0) } = {}) {
    this.trueTime = start; // ms since 1970: what a perfect clock reads
    this.mono = 1_000; // ms since page load
    this.wallOffset = 0; // device wall clock − true time, ms (the user's changes)
    this.timers = []; // { at (mono ms), fn, id }
    this.nextId = 1;
    this.requests = []; // every request a server saw: { url, headers, at }
    this.entries = []; // the page's Resource Timing entries, as a browser records them
    this.document = new EventTarget();
    this.document.visibilityState = 'visible';
    this.window = new EventTarget();
    this.clock = { monotonic: () => this.mono, wall: () => this.trueTime + this.wallOffset };
    this.setTimeout = (fn, ms) => {
      const id = this.nextId++;
      this.timers.push({ at: this.mono + Math.max(0, ms), fn, id });
      return id;
    };
    this.clearTimeout = (id) => { this.timers = this.timers.filter((t) => t.id !== id); };
    this.servers = new Map();
    this.fetch = (url, init) => this.#fetch(url, init);
    let seed = 12345;
    this.random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  }

  /** The options a client needs to live in this world. */
  get environment() {
    return {
      clock: this.clock, fetch: this.fetch, setTimeout: this.setTimeout, clearTimeout: this.clearTimeout,
      random: this.random, events: { document: this.document, window: this.window }, resolution: 0,
      resourceTiming: (url) => this.entries.filter((e) => e.name === url),
    };
  }

  /**
   * A server at `url`: its clock is true time + `offset` ms; one-way delays `forward`/`backward` ms;
   * `overhead` ms the browser spends before the request leaves and after the answer's first byte
   * (Resource Timing's requestStart and responseStart show it);
   * `respond(request)` may return { status, headers } to override what it sends; `kind` is
   * 'timesync' (TimeSync-Time and Date), 'date' (Date only) or 'timestamp' (a ms header and Date).
   */
  addServer(url, { offset = 0, forward = 10, backward = 10, processing = 0.05, overhead = 0, kind = 'timesync', respond } = {}) {
    this.servers.set(url, { offset, forward, backward, processing, overhead, kind, respond });
  }

  /** Server `url`'s clock now, in ms since 1970. */
  serverTime(url) { return this.trueTime + this.servers.get(url).offset; }

  /**
   * Moves time on by `ms` (both clocks), running every timer that falls due, in order. A timer that
   * fell due while the page was frozen runs late, at once: time never goes back.
   */
  async advance(ms) {
    const end = this.mono + ms;
    for (;;) {
      await flush();
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.#move(Math.max(0, due.at - this.mono));
      this.timers = this.timers.filter((t) => t !== due);
      due.fn();
    }
    this.#move(end - this.mono);
    await flush();
  }

  /**
   * The page frozen (or the device asleep) for `ms`: no timer runs meanwhile (those that fell due
   * run on the next `advance`). With `monotonicPaused` the monotonic clock stops too, as some
   * platforms stop it while the device sleeps.
   */
  freeze(ms, { monotonicPaused = false } = {}) {
    this.trueTime += ms;
    if (!monotonicPaused) this.mono += ms;
  }

  #move(ms) {
    this.mono += ms;
    this.trueTime += ms;
  }

  #fetch(url, init = {}) {
    const server = this.servers.get(url);
    return new Promise((resolve, reject) => {
      if (!server) { this.setTimeout(() => reject(new TypeError('Failed to fetch')), 5); return; }
      const headers = new Headers(init.headers ?? {});
      init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      const entry = { name: url, startTime: this.mono, requestStart: this.mono + server.overhead, responseStart: 0 };
      this.entries.push(entry);
      this.setTimeout(() => {
        const t2 = this.serverTime(url);
        const t3 = t2 + server.processing;
        this.requests.push({ url, headers, at: t2 });
        const response = buildResponse(server, headers, t2, t3);
        const custom = server.respond?.({ headers, t2, t3, response });
        const final = custom ?? response;
        this.setTimeout(() => {
          entry.responseStart = this.mono;
          this.setTimeout(() => resolve({
            status: final.status ?? 200, headers: new Headers(final.headers), body: null, arrayBuffer: async () => new ArrayBuffer(21),
          }), server.overhead);
        }, server.backward);
      }, server.forward + server.overhead);
    });
  }
}

/** What a TimeSync server sends: TimeSync-Time with the nonce echoed, and Date. */
function buildResponse(server, requestHeaders, t2, t3) {
  const headers = { Date: new Date(Math.floor(t2 / 1000) * 1000).toUTCString(), 'Content-Length': '21' };
  if (server.kind === 'timesync') {
    const t2ns = BigInt(Math.round(t2 * 1e6));
    const t3ns = BigInt(Math.round(t3 * 1e6));
    const s = t2ns / 1_000_000_000n;
    let value = `v=1, s=${s}, t2=${t2ns - s * 1_000_000_000n}, t3=${t3ns - s * 1_000_000_000n}`;
    // As the wire format says: a String item of safe characters, echoed; anything else is not.
    const nonce = /^"([A-Za-z0-9_.-]{1,64})"$/.exec(requestHeaders.get('TimeSync-Nonce') ?? '')?.[1];
    if (nonce) value += `, n="${nonce}"`;
    headers['TimeSync-Time'] = value;
  }
  if (server.kind === 'timestamp') headers['Response-Timestamp'] = String(Math.floor(t3));
  return { status: 200, headers };
}

/** Lets every pending promise callback run (no timer, no sleep). */
export async function flush() {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
