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

test('replies that must not be used: a wrong nonce, a cached copy, another version, no time at all', async (t) => {
  const cases = [
    ['nonce', ({ response }) => ({ ...response, headers: { ...response.headers, 'TimeSync-Time': response.headers['TimeSync-Time'].replace(/n="[^"]*"/, 'n="replayed"') } })],
    ['cached', ({ response }) => ({ ...response, headers: { ...response.headers, Age: '30' } })],
    ['version', ({ response }) => ({ ...response, headers: { ...response.headers, 'TimeSync-Time': 'v=2, s=1, t2=0, t3=0' } })],
    ['noTime', () => ({ status: 200, headers: {} })],
    ['malformed', ({ response }) => ({ ...response, headers: { ...response.headers, 'TimeSync-Time': 'v=1, s=1, t2=0, t3=0,' } })],
    ['reversed', ({ response }) => ({ ...response, headers: { ...response.headers, 'TimeSync-Time': 'v=1, s=1763701484, t2=5, t3=4' } })],
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
  const client = new TimeSyncClient({ sources: [URL_A] });
  assert.throws(() => client.position(Number.NaN, 1), RangeError);
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
