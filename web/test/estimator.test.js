// One estimator, two languages: the Swift simulator's streams (`timesync simulate --scenario all
// --write-streams web/test/fixtures/estimator-streams.json`) with the Swift estimator's outcome
// after every sample; this client's estimator must give the same outcome, its bounds and estimate
// within 1 µs. (A Swift test checks that the file is what the simulator writes today.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { replayStream } from '../timesync.js';

const streams = JSON.parse(readFileSync(new URL('./fixtures/estimator-streams.json', import.meta.url), 'utf8'));

test('the fixture covers every built-in scenario and every kind of outcome', () => {
  assert.equal(streams.length, 9);
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
    t.diagnostic(`${stream.samples.length} samples, largest difference ${largest} ns in bounds and estimate, ${largestRate} in rate`);
  });
}
