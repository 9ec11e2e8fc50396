// The client in a simulated world: injected clocks, timers and network; nothing sleeps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TimeSyncClient } from '../timesync.js';
import { World } from './world.js';

const URL_A = 'https://a.example/time';
const URL_B = 'https://b.example/time';
const URL_C = 'https://c.example/time';

function setUp({ servers = [[URL_A, {}]], ...options } = {}) {
  const world = new World();
  for (const [url, spec] of servers) world.addServer(url, spec);
  const client = new TimeSyncClient({ sources: servers.map(([url, spec]) => spec.source ?? url), ...world.environment, ...options });
  const events = [];
  for (const type of ['sync', 'calibrated', 'statuschange', 'error', 'clockjump', 'suspended', 'resumed']) {
    client.addEventListener(type, (event) => events.push({ type, ...event.detail }));
  }
  return { world, client, events };
}

/** |reading − true server time| must lie within the reading's own bounds. */
function assertHolds(reading, serverTime) {
  assert.ok(reading.earliest <= serverTime && serverTime <= reading.latest,
    `server time ${serverTime} outside [${reading.earliest}, ${reading.latest}]`);
}

test('one TimeSync-Time source: synchronized, the server time within the bound, the bound about half the round trip', async () => {
  const { world, client, events } = setUp({ servers: [[URL_A, { offset: 3_600_000.25, forward: 12, backward: 8 }]] });
  assert.equal(client.reading().status, 'unsynchronized');
  client.start();
  await world.advance(2_000);
  const reading = client.reading();
  assert.equal(reading.status, 'synchronized');
  assertHolds(reading, world.serverTime(URL_A));
  // Half the 20 ms round trip, plus 1.2 s of aging at the drift and slew allowances (600 ppm).
  assert.ok(reading.error >= 10 && reading.error <= 10.8, `error ${reading.error} ms, expected half the 20 ms round trip`);
  assert.ok(Math.abs(reading.time - world.serverTime(URL_A)) <= reading.error);
  assert.equal(world.requests.length, 4, 'the first sync is a burst of 4');
  assert.ok(world.requests.every((r) => /^"[A-Za-z0-9]{16}"$/.test(r.headers.get('TimeSync-Nonce'))), 'every request carries a nonce');
  assert.deepEqual(events.filter((e) => e.type === 'statuschange').map((e) => e.status), ['synchronized']);
  client.stop();
});

test('setting the device clock back moves neither now() nor a countdown; it is seen as a jump and resynced', async () => {
  const { world, client, events } = setUp({ servers: [[URL_A, { offset: -42_000 }]] });
  client.start();
  await world.advance(2_000);
  const target = world.serverTime(URL_A) + 10_000;
  const ticks = [];
  const countdown = client.countdown(target, (tick) => ticks.push(tick));
  assert.equal(ticks.at(-1).seconds, 10);
  await world.advance(3_000);
  const before = client.now();
  const requestsBefore = world.requests.length;
  world.wallOffset -= 3_600_000; // the user sets the clock an hour back
  await world.advance(1_500);
  assert.ok(Math.abs(client.now() - before - 1_500) < 1, 'now() follows the monotonic clock');
  assert.equal(events.filter((e) => e.type === 'clockjump').length, 1);
  assert.ok(Math.abs(events.find((e) => e.type === 'clockjump').by + 3_600_000) < 1_000);
  assert.ok(world.requests.length > requestsBefore, 'a jump starts a resync');
  assert.equal(client.status, 'synchronized');
  assertHolds(client.reading(), world.serverTime(URL_A));
  assert.equal(ticks.at(-1).seconds, 6, 'the countdown is where server time says: 10 s − 4.5 s, shown as 6');
  await world.advance(6_000);
  assert.ok(ticks.at(-1).finished && ticks.at(-1).certain, 'finished once the target has certainly passed');
  assert.ok(ticks.at(-1).reading.earliest >= target);
  assert.deepEqual(ticks.map((t) => t.seconds).filter((s, i, all) => all.indexOf(s) === i), [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  countdown.stop();
  client.stop();
});

test('setting the device clock ahead cannot be told from a stopped monotonic clock: suspended, then resynced, the countdown unmoved', async () => {
  const { world, client, events } = setUp();
  client.start();
  await world.advance(2_000);
  const target = world.serverTime(URL_A) + 30_000;
  const ticks = [];
  const countdown = client.countdown(target, (tick) => ticks.push(tick));
  world.wallOffset += 3_600_000;
  await world.advance(1_000); // the next check of the clocks
  assert.equal(events.filter((e) => e.type === 'suspended').length, 1);
  assert.equal(client.status, 'suspended');
  await world.advance(1_000);
  assert.equal(client.status, 'synchronized', 'the resync at once restores it');
  assertHolds(client.reading(), world.serverTime(URL_A));
  await world.advance(10); // the tick just after the whole second
  assert.equal(ticks.at(-1).seconds, 28, '30 s − 2 s');
  countdown.stop();
  client.stop();
});

test('a suspension during which the monotonic clock stopped: latest widens by the gap, earliest holds, then a resync restores the bound', async () => {
  const { world, client, events } = setUp({ servers: [[URL_A, { offset: 5_000 }]] });
  client.start();
  await world.advance(2_000);
  const calibrated = client.reading();
  world.freeze(60_000, { monotonicPaused: true });
  const widened = client.reading();
  assert.equal(widened.status, 'suspended');
  assert.ok(widened.latest - calibrated.latest >= 60_000, 'latest allows for the whole gap');
  assert.ok(Math.abs(widened.earliest - calibrated.earliest) < 1, 'earliest still holds');
  assertHolds(widened, world.serverTime(URL_A));
  assert.equal(client.position(calibrated.earliest - 10, calibrated.earliest - 5), 'after', 'a window certainly past is still after');
  assert.equal(client.position(world.serverTime(URL_A) - 1_000, world.serverTime(URL_A) + 1_000), 'uncertain', 'nothing else is vouched for');
  assert.equal(events.filter((e) => e.type === 'suspended').length, 1);
  await world.advance(2_000);
  const after = client.reading();
  assert.equal(after.status, 'synchronized');
  assert.ok(after.error < 11, `error ${after.error} ms after the resync`);
  assertHolds(after, world.serverTime(URL_A));
  client.stop();
});

test('a frozen page shown again resynchronizes', async () => {
  const { world, client, events } = setUp();
  client.start();
  await world.advance(2_000);
  world.document.visibilityState = 'hidden';
  world.document.dispatchEvent(new Event('visibilitychange'));
  const requests = world.requests.length;
  world.freeze(120_000);
  world.document.visibilityState = 'visible';
  world.document.dispatchEvent(new Event('visibilitychange'));
  await world.advance(1_000);
  assert.ok(world.requests.length > requests, 'shown again: a resync');
  assert.ok(events.some((e) => e.type === 'resumed' && e.gap >= 120_000));
  assert.equal(client.status, 'synchronized');
  assertHolds(client.reading(), world.serverTime(URL_A));
  client.stop();
});

test('a page frozen while a request is under way measures afresh once it runs: the resync follows that sync, it does not join it', async () => {
  // What a loaded machine made of the browser test: a sync had sent its request when the page froze,
  // and the answer was handled only once the page ran again (timers and replies held, then late).
  // The resyncs the page asks for on waking would have joined that sync, whose request left before
  // the freeze: nothing was measured afresh until the next poll, 15 minutes on.
  const { world, client, events } = setUp();
  client.start();
  await world.advance(2_000);
  client.sync('manual');
  await world.advance(5); // the request is out; the answer comes 15 ms on
  world.document.visibilityState = 'hidden';
  world.document.dispatchEvent(new Event('visibilitychange'));
  world.freeze(3_500);
  const woke = world.mono;
  world.document.dispatchEvent(new Event('resume'));
  world.document.visibilityState = 'visible';
  world.document.dispatchEvent(new Event('visibilitychange'));
  await world.advance(1_000);
  assert.deepEqual(events.filter((e) => e.type === 'sync').map((e) => e.reason), ['start', 'manual', 'resumed'],
    'one resync (the first reason asked for) follows the sync under way');
  assert.equal(world.entries.filter((e) => e.startTime >= woke).length, 1, 'a request sent after the page woke');
  assert.deepEqual(events.filter((e) => e.type === 'clockjump' || e.type === 'suspended'), [], 'a frozen page is neither a jump nor a pause');
  assert.equal(client.status, 'synchronized');
  assertHolds(client.reading(), world.serverTime(URL_A));
  client.stop();
});

test('the monotonic clock stopped while a request was under way: its answer, from before the stop, is not taken; a resync follows', async () => {
  const { world, client, events } = setUp({ servers: [[URL_A, { offset: 5_000 }]] });
  client.start();
  await world.advance(2_000);
  client.sync('manual');
  await world.advance(15); // the server has stamped its answer (5 ms ago); the answer is on its way
  world.freeze(60_000, { monotonicPaused: true });
  assert.equal(client.reading().status, 'suspended', 'the pause is seen before the answer comes');
  // The answer's tight bounds hold the offset from before the pause, 60 s off: taken, it would make
  // the page synchronized 60 s behind the server.
  for (let i = 0; i < 30; i++) {
    await world.advance(100);
    assertHolds(client.reading(), world.serverTime(URL_A));
  }
  assert.deepEqual(events.filter((e) => e.type === 'sync').map((e) => `${e.reason}: ${e.samples}`), ['start: 4', 'manual: 0', 'suspended: 4']);
  assert.equal(client.status, 'synchronized');
  assert.ok(client.reading().error < 12, `error ${client.reading().error} ms after the resync`);
  client.stop();
});

test('coming back online resynchronizes, no closer than minResyncInterval', async () => {
  const { world, client } = setUp();
  client.start();
  await world.advance(5_000);
  const before = world.requests.length;
  world.window.dispatchEvent(new Event('online'));
  world.window.dispatchEvent(new Event('online'));
  await world.advance(500);
  assert.equal(world.requests.length, before + 1, 'one resync for two events');
  client.stop();
});

test('three sources, one 5 s off: the majority wins and the liar is left out', async () => {
  const { world, client } = setUp({ servers: [[URL_A, {}], [URL_B, { offset: 5_000 }], [URL_C, { forward: 30 }]], minimumAgreeingSources: 2 });
  client.start();
  await world.advance(3_000);
  const reading = client.reading();
  assert.equal(reading.status, 'synchronized');
  assert.deepEqual(reading.sources, [URL_A, URL_C]);
  assertHolds(reading, world.serverTime(URL_A));
  client.stop();
});

test('two sources that disagree: no majority, no time vouched for', async () => {
  const { world, client } = setUp({ servers: [[URL_A, {}], [URL_B, { offset: 5_000 }]] });
  client.start();
  await world.advance(3_000);
  assert.equal(client.reading().status, 'noMajority');
  const now = world.serverTime(URL_A);
  assert.equal(client.position(now - 100_000, now - 50_000), 'uncertain');
  assert.equal(client.hasCertainlyPassed(now - 100_000), false);
  client.stop();
});

test('position: before, within, after and uncertain at the edges', async () => {
  const { world, client } = setUp();
  client.start();
  await world.advance(2_000);
  const now = world.serverTime(URL_A);
  assert.equal(client.position(now + 1_000, now + 2_000), 'before');
  assert.equal(client.position(now - 1_000, now + 1_000), 'within');
  assert.equal(client.position(now - 2_000, now - 1_000), 'after');
  assert.equal(client.position(now - 1_000, now + 2), 'uncertain', 'the bound straddles the end');
  assert.equal(client.hasCertainlyPassed(now - 100), true);
  assert.equal(client.hasCertainlyPassed(now + 100), false);
  client.stop();
});

test('a Date-only server is refined below a second by timing requests across its second boundaries', async () => {
  const { world, client } = setUp({ servers: [[URL_A, { kind: 'date', offset: 1_234.567, source: { url: URL_A, kind: 'date' } }]] });
  client.start();
  await world.advance(20_000);
  const reading = client.reading();
  assert.equal(reading.status, 'synchronized');
  assertHolds(reading, world.serverTime(URL_A));
  assert.ok(reading.error < 40, `error ${reading.error} ms: refined from 500 ms toward the 20 ms round trip`);
  assert.ok(world.requests.length <= 4 + 8, 'within the burst and the timed requests');
  client.stop();
});

test('a millisecond timestamp header', async () => {
  const source = { url: URL_A, header: 'Response-Timestamp', unit: 'ms' };
  const { world, client } = setUp({ servers: [[URL_A, { kind: 'timestamp', offset: 777, source }]] });
  client.start();
  await world.advance(2_000);
  const reading = client.reading();
  assert.equal(reading.status, 'synchronized');
  assertHolds(reading, world.serverTime(URL_A));
  assert.ok(reading.error <= 11.5, `error ${reading.error} ms: half the round trip and of the 1 ms resolution`);
  client.stop();
});

test('replies that must not be used: a wrong nonce, a cached copy, another version, no TimeSync-Time, nested dates', async (t) => {
  const cases = [
    ['nonce', ({ response }) => ({ ...response, headers: { ...response.headers, 'TimeSync-Time': response.headers['TimeSync-Time'].replace(/n="[^"]*"/, 'n="replayed"') } })],
    ['cached', ({ response }) => ({ ...response, headers: { ...response.headers, Age: '30' } })],
    ['version', ({ response }) => ({ ...response, headers: { ...response.headers, 'TimeSync-Time': 'v=2, s=1, t2=0, t3=0' } })],
    ['missingStamp', () => ({ status: 200, headers: {} })],
    ['malformed', ({ response }) => ({ ...response, headers: { ...response.headers, 'TimeSync-Time': 'v=1, s=1, t2=0, t3=0,' } })],
    ['reversed', ({ response }) => ({ ...response, headers: { ...response.headers, 'TimeSync-Time': 'v=1, s=1763701484, t2=5, t3=4' } })],
    ['malformed', ({ response }) => ({ ...response, headers: { ...response.headers, 'TimeSync-Time': `${response.headers['TimeSync-Time']}, d=${'@'.repeat(12_000)}1` } })],
  ];
  for (const [code, respond] of cases) {
    await t.test(code, async () => {
      const { world, client, events } = setUp({ servers: [[URL_A, { respond }]] });
      client.start();
      await world.advance(2_000);
      assert.equal(client.status, 'unsynchronized');
      const errors = events.filter((e) => e.type === 'error');
      assert.ok(errors.length > 0 && errors.every((e) => e.code === code), `codes: ${errors.map((e) => e.code)}`);
      assert.ok(errors[0].message.length > 20);
      client.stop();
    });
  }
});

test('Retry-After: a 429 keeps the source unasked for as long as it says', async () => {
  let refuse = true;
  const respond = () => (refuse ? { status: 429, headers: { 'Retry-After': '120' } } : undefined);
  const { world, client, events } = setUp({ servers: [[URL_A, { respond }]] });
  client.start();
  await world.advance(2_000);
  assert.equal(world.requests.length, 1, 'the burst stops at the refusal');
  assert.equal(events.find((e) => e.type === 'error').code, 'rateLimited');
  refuse = false;
  await world.advance(100_000);
  assert.equal(world.requests.length, 1, 'not asked within the 120 s');
  await world.advance(80_000);
  assert.ok(world.requests.length > 1, 'asked again after it');
  assert.equal(client.status, 'synchronized');
  client.stop();
});

test('the request budget caps requests however many events ask for a resync', async () => {
  const { world, client, events } = setUp({ budget: { requests: 6, per: 3_600_000 }, minResyncInterval: 0 });
  client.start();
  await world.advance(2_000);
  for (let i = 0; i < 10; i++) {
    world.window.dispatchEvent(new Event('online'));
    await world.advance(1_000);
  }
  assert.equal(world.requests.length, 6);
  assert.ok(events.some((e) => e.type === 'error' && e.code === 'budget'));
  client.stop();
});

test('a server that does not answer: one deadline per request, then an error that says so', async () => {
  const { world, client, events } = setUp({ servers: [[URL_A, { forward: 60_000 }]], timeout: 3_000 });
  client.start();
  await world.advance(4_000);
  const error = events.find((e) => e.type === 'error');
  assert.equal(error.code, 'timeout');
  assert.match(error.message, /did not answer within 3000 ms/);
  client.stop();
});

test('bad settings are refused at construction', () => {
  assert.throws(() => new TimeSyncClient({ sources: [] }), /at least one source/);
  assert.throws(() => new TimeSyncClient({ sources: [{ url: URL_A, kind: 'timestamp' }] }), /header/);
  assert.throws(() => new TimeSyncClient({ sources: [URL_A, URL_A] }), /same name/);
  assert.throws(() => new TimeSyncClient({ sources: [{ url: URL_A, kind: 'ntp' }] }), /unknown source kind/);
  assert.throws(() => new TimeSyncClient({ sources: [URL_A], pollInterval: -5 }), /pollInterval -5: give a number from 1000/);
  assert.throws(() => new TimeSyncClient({ sources: [URL_A], burst: 2.5 }), /burst 2.5: give a whole number/);
  assert.throws(() => new TimeSyncClient({ sources: [URL_A], timeout: Number.NaN }), /timeout NaN/);
  assert.throws(() => new TimeSyncClient({ sources: [URL_A], budget: { requests: 0 } }), /budget.requests 0/);
  assert.throws(() => new TimeSyncClient({ sources: [URL_A], watchInterval: '1000' }), /watchInterval 1000/);
  assert.throws(() => new TimeSyncClient({ sources: [{ url: URL_A, fallback: 'Date' }] }), /fallback 'Date': use none or date/);
  assert.throws(() => new TimeSyncClient({ sources: [{ url: URL_A, kind: 'date', fallback: 'date' }] }), /fallback applies to 'timesync' sources only/);
  assert.throws(() => new TimeSyncClient({ sources: [{ url: URL_A, header: 'Response Timestamp' }] }), /header 'Response Timestamp': give a header's name/);
  assert.equal(new TimeSyncClient({ sources: [URL_A] }).sources[0].fallback, 'none', "a 'timesync' source falls back to nothing unless told");
});

test('stop() ends a sync under way and polling; countdowns and readings go on from the last calibration', async () => {
  const { world, client } = setUp();
  client.start();
  await world.advance(300); // two of the burst's four answers are in
  const requests = world.requests.length;
  const ticks = [];
  client.countdown(world.serverTime(URL_A) + 5_000, (tick) => ticks.push(tick.seconds));
  client.stop();
  await world.advance(50); // the burst was waiting between requests: it ends there
  assert.equal(world.requests.length, requests, 'the burst went no further');
  const manual = client.sync('manual');
  await world.advance(2_000);
  assert.equal(await manual, 1, 'a sync after stop() is not stuck behind the stopped one (calibrated: one request)');
  const afterManual = world.requests.length;
  await world.advance(3_600_000);
  assert.equal(world.requests.length, afterManual, 'no poll after stop()');
  assert.ok(afterManual > requests, 'a manual sync still measures');
  assert.ok(ticks.includes(1) && ticks.at(-1) === 0, `the countdown ran on: ${ticks}`);
  assert.equal(client.reading().status, 'synchronized');
});

test('Resource Timing: the request\'s own requestStart and responseStart tighten the bound past the browser\'s overhead', async () => {
  const spec = { forward: 5, backward: 5, overhead: 3 };
  const timed = setUp({ servers: [[URL_A, spec]] });
  timed.client.start();
  await timed.world.advance(2_000);
  const untimed = setUp({ servers: [[URL_A, spec]], resourceTiming: () => [] });
  untimed.client.start();
  await untimed.world.advance(2_000);
  const [a, b] = [timed.client.reading(), untimed.client.reading()];
  assertHolds(a, timed.world.serverTime(URL_A));
  assertHolds(b, untimed.world.serverTime(URL_A));
  // Network round trip 10 ms: ±5 ms from the entries; the script's own timing adds 2 × 3 ms.
  assert.ok(a.error >= 5 && a.error < 5.8, `with Resource Timing ±${a.error} ms`);
  assert.ok(b.error >= 8 && b.error < 8.8, `without ±${b.error} ms`);
  timed.client.stop();
  untimed.client.stop();
});

test('Resource Timing is not trusted when another fetch of the same URL overlaps, nor when it lies outside the fetch', async () => {
  const spec = { forward: 5, backward: 5, overhead: 3 };
  for (const [label, doctor] of [
    ['two entries', (entries, url) => [...entries.filter((e) => e.name === url), ...entries.filter((e) => e.name === url).map((e) => ({ ...e }))]],
    ['outside', (entries, url) => entries.filter((e) => e.name === url).map((e) => ({ ...e, responseStart: e.responseStart + 100 }))],
    ['zeros (cross-origin without Timing-Allow-Origin)', (entries, url) => entries.filter((e) => e.name === url).map((e) => ({ ...e, requestStart: 0, responseStart: 0 }))],
  ]) {
    const world = new World();
    world.addServer(URL_A, spec);
    const client = new TimeSyncClient({ sources: [URL_A], ...world.environment, resourceTiming: (url) => doctor(world.entries, url) });
    client.start();
    await world.advance(2_000);
    const reading = client.reading();
    assertHolds(reading, world.serverTime(URL_A));
    assert.ok(reading.error >= 8, `${label}: ±${reading.error} ms, as if there were no entry`);
    client.stop();
  }
});

/** The statuses a client changes to, from now on. */
function statuses(client) {
  const seen = [];
  client.addEventListener('statuschange', (event) => seen.push(event.detail.status));
  return seen;
}

test('a Date source stepping 30 s for one round is provisional, not synchronized at the step; the next round agreeing confirms it', async () => {
  const source = { url: URL_A, kind: 'date' };
  const { world, client, events } = setUp({ servers: [[URL_A, { kind: 'date', source }]] });
  client.start();
  await world.advance(20_000);
  assert.equal(client.status, 'synchronized');
  const seen = statuses(client);
  world.servers.get(URL_A).offset = 30_000;
  await world.advance(15 * 60_000); // the next poll: its timed requests all see the step
  const round = events.filter((e) => e.type === 'sync').at(-1);
  assert.ok(round.samples >= 2, `the round took ${round.samples} samples: several, one measurement`);
  assert.equal(client.status, 'provisional');
  assert.ok(!seen.includes('synchronized'), `statuses: ${seen}`);
  assert.ok(Math.abs(client.now() - (world.serverTime(URL_A) - 30_000)) < 100, 'the estimate stays where the window says');
  assert.equal(client.position(world.serverTime(URL_A) - 1_000, world.serverTime(URL_A) + 1_000), 'uncertain');
  await world.advance(60_000); // the next poll: a round that agrees with the step
  assert.equal(client.status, 'synchronized');
  assertHolds(client.reading(), world.serverTime(URL_A));
  assert.ok(events.filter((e) => e.type === 'sync').length >= 3);
  client.stop();
});

test('a Date source stepping 30 s for one round, then back: the next round refutes the step', async () => {
  const source = { url: URL_A, kind: 'date' };
  const { world, client } = setUp({ servers: [[URL_A, { kind: 'date', source }]] });
  client.start();
  await world.advance(20_000);
  world.servers.get(URL_A).offset = 30_000;
  const seen = statuses(client);
  await world.advance(15 * 60_000);
  assert.equal(client.status, 'provisional');
  world.servers.get(URL_A).offset = 0;
  await world.advance(60_000);
  assert.equal(client.status, 'synchronized');
  assertHolds(client.reading(), world.serverTime(URL_A));
  assert.deepEqual(seen, ['provisional', 'synchronized']);
  client.stop();
});

test('a Date server replaying one frozen Date never becomes synchronized after the first contradiction', async () => {
  const source = { url: URL_A, kind: 'date' };
  const world0 = new World();
  const frozen = new Date(Math.floor(world0.trueTime / 1000) * 1000 + 5_000).toUTCString();
  const respond = () => ({ status: 200, headers: { Date: frozen, 'Content-Length': '21' } });
  const { world, client, events } = setUp({ servers: [[URL_A, { kind: 'date', source, respond }]] });
  const seen = statuses(client);
  client.start();
  await world.advance(15 * 60_000);
  const first = seen.findIndex((status) => status !== 'synchronized');
  assert.ok(first >= 0, `a contradiction was seen: ${seen}`);
  assert.ok(!seen.slice(first).includes('synchronized'), `statuses: ${seen}`);
  assert.notEqual(client.status, 'synchronized');
  assert.ok(events.filter((e) => e.type === 'sync').length >= 10, 'round after round');
  client.stop();
});

test("a 'timesync' source answering without TimeSync-Time is refused (missingStamp), its Date not read", async () => {
  // A stored response replayed: an hour-old Date, no TimeSync-Time, no nonce.
  const respond = ({ t2 }) => ({ status: 200, headers: { Date: new Date(Math.floor(t2 / 1000) * 1000 - 3_600_000).toUTCString() } });
  const { world, client, events } = setUp({ servers: [[URL_A, { respond }]] });
  client.start();
  await world.advance(120_000);
  assert.equal(client.status, 'unsynchronized');
  const errors = events.filter((e) => e.type === 'error');
  assert.ok(errors.length > 0 && errors.every((e) => e.code === 'missingStamp'), `codes: ${errors.map((e) => e.code)}`);
  assert.match(errors[0].message, /without a TimeSync-Time header.*fallback: 'date'/);
  client.stop();
});

test("fallback: 'date' reads the Date header of a 'timesync' source that does not stamp its replies", async () => {
  const source = { url: URL_A, fallback: 'date' };
  const { world, client } = setUp({ servers: [[URL_A, { kind: 'date', offset: 2_345.6, source }]] });
  client.start();
  await world.advance(20_000);
  assert.equal(client.status, 'synchronized');
  assertHolds(client.reading(), world.serverTime(URL_A));
  client.stop();
});

test("a source that answered with TimeSync-Time is never downgraded to its Date, even with fallback: 'date'", async () => {
  let replay = false;
  const respond = ({ t2 }) => (replay ? { status: 200, headers: { Date: new Date(Math.floor(t2 / 1000) * 1000 - 3_600_000).toUTCString() } } : undefined);
  const source = { url: URL_A, fallback: 'date' };
  const { world, client, events } = setUp({ servers: [[URL_A, { respond, source }]] });
  client.start();
  await world.advance(2_000);
  assert.equal(client.status, 'synchronized');
  replay = true;
  for (let i = 0; i < 3; i++) await Promise.all([client.sync('manual'), world.advance(70_000)]);
  const errors = events.filter((e) => e.type === 'error');
  assert.ok(errors.length >= 3 && errors.every((e) => e.code === 'downgrade'), `codes: ${errors.map((e) => e.code)}`);
  assert.equal(client.status, 'synchronized');
  assertHolds(client.reading(), world.serverTime(URL_A));
  client.stop();
});

test('a countdown never busy-waits when the target has passed and the clock cannot vouch (provisional, noMajority)', async (t) => {
  const cases = [
    ['provisional', { minimumAgreeingSources: 2 }],
    ['noMajority', { servers: [[URL_A, {}], [URL_B, { offset: 5_000 }]] }],
  ];
  for (const [status, options] of cases) {
    await t.test(status, async () => {
      const { world, client } = setUp(options);
      client.start();
      await world.advance(2_000);
      assert.equal(client.status, status);
      let ticks = 0;
      let handle = null;
      handle = client.countdown(world.serverTime(URL_A) - 5_000, () => { if (++ticks > 1_000) handle?.stop(); });
      await world.advance(10_000);
      assert.ok(ticks <= 11, `${ticks} ticks in 10 s`);
      assert.ok(ticks >= 10, `${ticks} ticks in 10 s: one a second still`);
      handle.stop();
      client.stop();
    });
  }
});

test('a countdown refuses a target that is not a finite time, an interval that is not 1 ms to a day, and no onTick', async () => {
  const { world, client } = setUp();
  client.start();
  await world.advance(2_000);
  const timers = world.timers.length;
  let ticks = 0;
  const onTick = () => { ticks += 1; };
  for (const target of [Number.NaN, Infinity, -Infinity, new Date(Number.NaN), '2026-12-01', undefined]) {
    assert.throws(() => client.countdown(target, onTick), (e) => e instanceof TypeError && /^target /.test(e.message), String(target));
  }
  for (const interval of [0, -1_000, Number.NaN, Infinity, 0.5, 86_400_001, '1000']) {
    assert.throws(() => client.countdown(Date.now() + 10_000, onTick, { interval }), (e) => e instanceof TypeError && /^interval /.test(e.message), String(interval));
  }
  assert.throws(() => client.countdown(Date.now() + 10_000), (e) => e instanceof TypeError && /^onTick/.test(e.message));
  assert.equal(ticks, 0, 'no tick');
  assert.equal(world.timers.length, timers, 'no timer');
  client.stop();
});

test('a countdown ticks no more often than its interval and the whole seconds', async () => {
  const { world, client } = setUp();
  client.start();
  await world.advance(2_000);
  for (const [interval, most] of [[1_000, 11], [250, 41], [5_000, 11]]) {
    let ticks = 0;
    const handle = client.countdown(world.serverTime(URL_A) + 60_000, () => { ticks += 1; }, { interval });
    await world.advance(10_000);
    handle.stop();
    assert.ok(ticks <= most && ticks >= 10, `interval ${interval}: ${ticks} ticks in 10 s`);
  }
  client.stop();
});

test('position and hasCertainlyPassed: an infinite end is open-ended, an infinite start open; NaN and non-numbers are TypeErrors', async () => {
  const { world, client } = setUp();
  client.start();
  await world.advance(2_000);
  const now = world.serverTime(URL_A);
  assert.equal(client.position(now - 1_000, Infinity), 'within');
  assert.equal(client.position(now + 1_000, Infinity), 'before');
  assert.equal(client.position(-Infinity, now + 1_000), 'within');
  assert.equal(client.position(-Infinity, now - 1_000), 'after');
  assert.equal(client.position(-Infinity, Infinity), 'within');
  assert.equal(client.position(new Date(now - 1_000), new Date(now + 1_000)), 'within');
  assert.equal(client.hasCertainlyPassed(-Infinity), true);
  assert.equal(client.hasCertainlyPassed(Infinity), false);
  const typeError = (pattern) => (e) => e instanceof TypeError && pattern.test(e.message);
  assert.throws(() => client.position(Number.NaN, now), typeError(/^start NaN/));
  assert.throws(() => client.position(now, Number.NaN), typeError(/^end NaN/));
  assert.throws(() => client.position(new Date(Number.NaN), now), typeError(/^start Invalid Date/));
  assert.throws(() => client.position(String(now), now + 1), typeError(/^start string/));
  assert.throws(() => client.position(now), typeError(/^end undefined/));
  assert.throws(() => client.hasCertainlyPassed(Number.NaN), typeError(/^instant NaN/));
  client.stop();
});

test('a timestamp header with leading zeros reads as its digits', async () => {
  const source = { url: URL_A, header: 'Response-Timestamp', unit: 'ms' };
  const respond = ({ response }) => ({ ...response, headers: { ...response.headers, 'Response-Timestamp': `0000000000${response.headers['Response-Timestamp']}` } });
  const { world, client, events } = setUp({ servers: [[URL_A, { kind: 'timestamp', offset: 777, source, respond }]] });
  client.start();
  await world.advance(2_000);
  assert.deepEqual(events.filter((e) => e.type === 'error').map((e) => e.code), []);
  assert.equal(client.status, 'synchronized');
  assertHolds(client.reading(), world.serverTime(URL_A));
  client.stop();
});

test('Age: 00 is a fresh answer, as Age: 0 is', async () => {
  const respond = ({ response }) => ({ ...response, headers: { ...response.headers, Age: '00' } });
  const { world, client } = setUp({ servers: [[URL_A, { respond }]] });
  client.start();
  await world.advance(2_000);
  assert.equal(client.status, 'synchronized');
  client.stop();
});

test('a pause seen in the middle of a round: the samples from before it are not taken with those after', async () => {
  const { world, client, events } = setUp({ servers: [[URL_A, { offset: 1_000 }]] });
  client.start();
  await world.advance(2_000);
  world.freeze(60_000, { monotonicPaused: true });
  assert.equal(client.reading().status, 'suspended', 'a first pause: a resync, a burst of four, starts');
  await world.advance(300); // two of the burst's answers are in, not yet taken
  world.freeze(60_000, { monotonicPaused: true });
  client.reading(); // a second pause, seen in the middle of the round
  assert.equal(events.filter((e) => e.type === 'suspended').length, 2);
  await world.advance(2_000);
  const reading = client.reading();
  assert.equal(reading.status, 'synchronized');
  assertHolds(reading, world.serverTime(URL_A));
  assert.ok(reading.error < 11, `error ${reading.error} ms`);
  client.stop();
});
