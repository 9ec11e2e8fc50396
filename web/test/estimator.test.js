// One estimator, two languages: the Swift simulator's streams (`timesync simulate --scenario all
// --write-streams web/test/fixtures/estimator-streams.json`) with the Swift estimator's outcome
// after every measurement (one sample, or an HTTP source's several); this client's estimator must give the same outcome, its bounds and estimate
// within 1 µs. (A Swift test checks that the file is what the simulator writes today.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { IntersectionEstimator, makeSample, replayStream } from '../timesync.js';

const streams = JSON.parse(readFileSync(new URL('./fixtures/estimator-streams.json', import.meta.url), 'utf8'));

test('the fixture covers every built-in scenario and every kind of outcome', () => {
  assert.equal(streams.length, 13);
  // The HTTP and Date scenarios deliver several samples per measurement: the batch rule is compared too.
  assert.ok(streams.filter((s) => s.measurements).length >= 4, 'no stream with measurements of several samples');
  const kinds = new Set(streams.flatMap((s) => s.outcomes.map((o) => o[0])));
  for (const kind of ['calibrated', 'contradicted', 'noMajority']) assert.ok(kinds.has(kind), `no ${kind} outcome in the fixture`);
  assert.ok(new Set(streams.flatMap((s) => s.samples.map((x) => x[0]))).size >= 6, 'too few sources');
});

for (const stream of streams) {
  test(`${stream.scenario}: each calibration matches Swift's within 1 µs`, (t) => {
    const ours = replayStream(stream);
    assert.equal(ours.length, stream.outcomes.length);
    let largest = 0n;
    let largestRate = 0;
    ours.forEach((row, index) => {
      const theirs = stream.outcomes[index];
      assert.equal(row[0], theirs[0], `sample ${index}: the outcome's kind`);
      if (theirs.length === 1) return;
      assert.equal(row[1], theirs[1], `sample ${index}: the anchor`);
      for (const k of [2, 3, 4]) {
        const difference = BigInt(row[k]) - BigInt(theirs[k]);
        const magnitude = difference < 0n ? -difference : difference;
        if (magnitude > largest) largest = magnitude;
        assert.ok(magnitude <= 1000n, `sample ${index}: ${['', '', 'lower', 'upper', 'estimate'][k]} differs by ${magnitude} ns`);
      }
      for (const k of [5, 6, 7]) largestRate = Math.max(largestRate, Math.abs(Number(row[k]) - Number(theirs[k])));
    });
    t.diagnostic(`${stream.samples.length} samples in ${stream.outcomes.length} measurements, largest difference ${largest} ns in bounds and estimate, ${largestRate} in rate`);
  });
}

// Samples of one source: θ (server − monotonic time) within ±10 ms of `offset` ms, at monotonic `at` s.
const BASE = 1_767_225_600_000_000_000n; // 2026-01-01, in ns
const sample = (offset, at, source = 'a') => {
  const theta = BASE + BigInt(Math.round(offset * 1e6));
  return makeSample({ source, lower: theta - 10_000_000n, upper: theta + 10_000_000n, time: BigInt(Math.round(at * 1e9)), span: 20_000_000n, delay: 20_000_000n });
};
const estimateMs = (outcome) => Number(outcome.calibration.estimate - BASE) / 1e6;

/** An estimator whose one source has agreed with offset 0 for four measurements. */
function steady() {
  const estimator = new IntersectionEstimator();
  for (let at = 10; at <= 40; at += 10) assert.equal(estimator.add(sample(0, at)).kind, 'calibrated');
  return estimator;
}

test('one measurement cannot confirm a step: a round of samples 30 s off is contradicted, the estimate unmoved', () => {
  const estimator = steady();
  const outcome = estimator.addMeasurement([sample(30_000, 50), sample(30_000, 50.2), sample(30_000, 50.4), sample(30_000, 50.6)]);
  assert.equal(outcome.kind, 'contradicted');
  assert.ok(Math.abs(estimateMs(outcome)) < 20, `estimate ${estimateMs(outcome)} ms`);
  assert.equal(estimator.records.get('a').suspects.length, 4, 'the round is held');
});

test('a step held from one measurement is confirmed by the next that agrees with it', () => {
  const estimator = steady();
  estimator.addMeasurement([sample(30_000, 50), sample(30_000, 50.2)]);
  const outcome = estimator.addMeasurement([sample(30_000, 110)]);
  assert.equal(outcome.kind, 'calibrated');
  assert.ok(Math.abs(estimateMs(outcome) - 30_000) < 20, `estimate ${estimateMs(outcome)} ms`);
  assert.equal(estimator.records.get('a').window.length, 3, 'the window is the three agreeing suspects');
});

test('a step held from one measurement is refuted by the next that agrees with the window', () => {
  const estimator = steady();
  estimator.addMeasurement([sample(30_000, 50), sample(30_000, 50.2)]);
  const outcome = estimator.addMeasurement([sample(0, 110)]);
  assert.equal(outcome.kind, 'calibrated');
  assert.ok(Math.abs(estimateMs(outcome)) < 20, `estimate ${estimateMs(outcome)} ms`);
  assert.equal(estimator.records.get('a').suspects.length, 0);
});

test('add(sample) is a measurement of its own: two agreeing single suspects confirm a step', () => {
  const estimator = steady();
  assert.equal(estimator.add(sample(30_000, 50)).kind, 'contradicted');
  const outcome = estimator.add(sample(30_000, 50.2));
  assert.equal(outcome.kind, 'calibrated');
  assert.ok(Math.abs(estimateMs(outcome) - 30_000) < 20);
});

test('addMeasurement refuses anything but an array of samples, and changes nothing', () => {
  const estimator = steady();
  const before = JSON.stringify(estimator.outcome(), (k, v) => (typeof v === 'bigint' ? String(v) : v));
  assert.throws(() => estimator.addMeasurement(sample(30_000, 50)), (e) => e instanceof TypeError && /^samples:/.test(e.message));
  assert.throws(() => estimator.addMeasurement([sample(30_000, 50), { source: 'a' }]), (e) => e instanceof TypeError && /^samples\[1\]:/.test(e.message));
  assert.throws(() => estimator.add(null), (e) => e instanceof TypeError && /^sample:/.test(e.message));
  assert.equal(estimator.addMeasurement([]), null);
  assert.equal(JSON.stringify(estimator.outcome(), (k, v) => (typeof v === 'bigint' ? String(v) : v)), before);
  assert.equal(estimator.records.get('a').suspects.length, 0);
});
