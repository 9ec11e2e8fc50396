// timesync.js — server time in a web page, with an honest error bound. No dependency.
//
//   import { TimeSyncClient } from './timesync.js';
//   const clock = new TimeSyncClient({ sources: ['https://api.example.com/time'] });
//   clock.start();
//   clock.reading();            // { time, earliest, latest, error, status, … } in ms since 1970
//   clock.position(start, end); // 'before' | 'within' | 'after' | 'uncertain'
//
// Three parts, in this order: the estimator, the wire formats, and the client. Types: timesync.d.ts.

// ————————————————————————————————————————————————————————————————————————————————
// The estimator: hard-bound intersection per source, measured drift, and a majority vote across
// sources — the same arithmetic as the Swift package's `IntersectionEstimator`, on BigInt
// nanoseconds so that both give the same answers to the nanosecond.
//
// θ = server time − monotonic time. A sample bounds θ at the monotonic instant its reply arrived:
// [t3 − t4, t2 − t1] for an exchange, [T − t4, T + resolution − t1] for a timestamp. Per source the
// newest samples, and the tightest older ones, are kept; every pair bounds the local clock's rate;
// each sample carried to the newest instant with that rate still bounds θ, and their intersection
// is the source's fit. A sample that contradicts the window is held as a suspect until a sample of
// another measurement agrees with it (the server stepped); the samples of one measurement (one sync
// round of one source) count as one vote. Across sources, Marzullo's algorithm finds the region
// most sources agree on; fewer than a strict majority agreeing gives no time at all.

/** The cap on drift, wander and slew rates: 1 %. A clock off by more is broken, not drifting. */
const DRIFT_LIMIT = 0.01;

const I64_MAX = (1n << 63n) - 1n;
const I64_MIN = -(1n << 63n);

/** Saturates a BigInt into the Int64 range. */
const sat = (x) => (x > I64_MAX ? I64_MAX : x < I64_MIN ? I64_MIN : x);
const add = (a, b) => sat(a + b);
const sub = (a, b) => sat(a - b);
const maxB = (a, b) => (a > b ? a : b);
const minB = (a, b) => (a < b ? a : b);

/** A Number to Int64 nanoseconds: rounded half away from zero, saturating, NaN → 0. */
function fromDouble(value) {
  if (Number.isNaN(value)) return 0n;
  if (value >= 9.2e18) return I64_MAX;
  if (value <= -9.2e18) return I64_MIN;
  return BigInt(Math.sign(value) * Math.round(Math.abs(value)));
}

/** An interval of offsets [lower, upper] in nanoseconds. */
class Interval {
  constructor(lower, upper) {
    this.lower = lower;
    this.upper = upper;
  }
  get width() { return sub(this.upper, this.lower); }
  get halfWidth() { const w = this.width; return w / 2n + (w % 2n); }
  get midpoint() { return this.lower / 2n + this.upper / 2n + (this.lower % 2n + this.upper % 2n) / 2n; }
  contains(value) { return this.lower <= value && value <= this.upper; }
  clamp(value) { return minB(maxB(value, this.lower), this.upper); }
  widened(below, above = below) {
    return new Interval(sub(this.lower, maxB(0n, below)), add(this.upper, maxB(0n, above)));
  }
  intersection(other) {
    const lo = maxB(this.lower, other.lower);
    const hi = minB(this.upper, other.upper);
    return lo <= hi ? new Interval(lo, hi) : null;
  }
}

/** Bounds and estimate of the rate at which θ changes (dimensionless). */
class Rate {
  constructor(lower, upper, estimate = (lower + upper) / 2) {
    this.lower = lower;
    this.upper = upper;
    this.estimate = Math.min(Math.max(estimate, lower), upper);
  }
  static symmetric(maximum) { return new Rate(-Math.abs(maximum), Math.abs(maximum), 0); }
  get maxMagnitude() { return Math.max(Math.abs(this.lower), Math.abs(this.upper)); }
  intersection(other) {
    const lo = Math.max(this.lower, other.lower);
    const hi = Math.min(this.upper, other.upper);
    return lo <= hi ? new Rate(lo, hi, this.estimate) : null;
  }
  /** `interval` carried over `elapsed` nanoseconds (a Number) at this rate, rounded outward. */
  age(interval, elapsed) {
    const [lo, hi] = elapsed >= 0 ? [this.lower * elapsed, this.upper * elapsed] : [this.upper * elapsed, this.lower * elapsed];
    const lower = add(interval.lower, fromDouble(Math.floor(lo)));
    const upper = add(interval.upper, fromDouble(Math.ceil(hi)));
    return new Interval(lower, maxB(lower, upper));
  }
}

/** How far a server's clock may be slewed off its steady course: `rate` up to `limit` ns in all. */
class Slew {
  constructor(rate, limit) {
    this.rate = Number.isFinite(rate) ? Math.min(Math.abs(rate), DRIFT_LIMIT) : 0;
    this.limit = minB(maxB(0n, limit), 1_000_000_000n);
  }
  widening(elapsed) {
    if (this.limit <= 0n) return 0n;
    const magnitude = Number(elapsed < 0n ? -elapsed : elapsed);
    return minB(this.limit, fromDouble(Math.ceil(this.rate * magnitude)));
  }
}
const NO_SLEW = new Slew(0, 0n);

const capped = (value, fallback) => (Number.isFinite(value) ? Math.min(Math.abs(value), DRIFT_LIMIT) : fallback);

/** The estimator's settings, with the Swift package's defaults. */
function estimatorConfiguration(options = {}) {
  return {
    maxDrift: capped(options.maxDrift ?? 100e-6, 100e-6),
    rateWander: capped(options.rateWander ?? 2e-6, 2e-6),
    windowSize: Math.max(1, Math.trunc(options.windowSize ?? 64)),
    sourceTimeout: BigInt(options.sourceTimeout ?? 3_600_000_000_000n),
    slew: new Slew(capped(options.serverSlew ?? 500e-6, 500e-6), BigInt(options.serverSlewLimit ?? 128_000_000n)),
  };
}

// Sample limits, checked where a sample is made (see `makeSample`).
const MAX_SPAN = 3_600_000_000_000n;
const MAX_WIDTH = MAX_SPAN + 3_600_000_000_000n;
const SERVER_TIME_MIN = -2_208_988_800n * 1_000_000_000n;
const SERVER_TIME_END = 7_258_118_400n * 1_000_000_000n;
const MONOTONIC_MAX = 200n * 365n * 86_400n * 1_000_000_000n;

/** Why a sample was refused. */
export class SampleError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'SampleError';
    this.code = code;
  }
}

/**
 * A checked sample: `offset` bounds θ at monotonic `time` (ns); `span` is t4 − t1 and `delay` the
 * round trip less the server's own time. Throws a `SampleError` for anything out of range.
 */
export function makeSample({ source, lower, upper, time, span, delay }) {
  const fail = (code, message) => { throw new SampleError(code, message); };
  if (typeof source !== 'string' || source.length === 0 || source.length > 1024) fail('sourceName', 'a sample needs a source name of 1 to 1024 characters');
  if (time < 0n || time > MONOTONIC_MAX) fail('monotonicOutOfRange', 'the monotonic instant is out of range');
  if (span < 0n) fail('replyBeforeRequest', 'the reply arrived before the request was sent');
  if (span > MAX_SPAN) fail('spanTooLong', 'the exchange took longer than an hour');
  if (delay < 0n || delay > span) fail('negativeDelay', 'the server claims more time than the exchange took');
  if (lower > upper) fail('emptyInterval', 'the sample bounds nothing (t3 − t4 > t2 − t1)');
  if (upper - lower > MAX_WIDTH) fail('intervalTooWide', 'the sample is too wide to use');
  for (const bound of [lower + time, upper + time]) {
    if (bound < SERVER_TIME_MIN || bound >= SERVER_TIME_END) fail('timeOutOfRange', 'the server time is outside 1900–2200');
  }
  return { source, offset: new Interval(lower, upper), time, span, delay };
}

/** A sample's bounds carried to `instant` at `rate`, widened for the drift during its own exchange. */
function carry(sample, instant, rate, slew) {
  const elapsed = sub(instant, sample.time);
  const during = rate.maxMagnitude * Number(sample.span);
  return rate.age(sample.offset, Number(elapsed)).widened(fromDouble(Math.ceil(during))).widened(slew.widening(elapsed));
}

/** The intersection of the newest samples carried to `instant`, back to the first that contradicts. */
function newestAgreeing(samples, instant, rate, slew = NO_SLEW) {
  let oldest = samples.length - 1;
  let bounds = carry(samples[oldest], instant, rate, slew);
  for (let index = samples.length - 2; index >= 0; index--) {
    const common = bounds.intersection(carry(samples[index], instant, rate, slew));
    if (!common) break;
    bounds = common;
    oldest = index;
  }
  return { bounds, oldest };
}

/** The sample to drop from a full window: the widest among all but the newest quarter (ties: oldest). */
function leastUseful(window) {
  const candidates = window.length - Math.max(1, Math.trunc(window.length / 4));
  let best = 0;
  for (let i = 1; i < candidates; i++) if (window[i].offset.width > window[best].offset.width) best = i;
  return best;
}

/** Weighted least-squares slope of the midpoints over time (weights 1/half-width², floor 1 µs). */
function slope(window) {
  const t0 = Number(window[0].time);
  const m0 = Number(window[0].offset.midpoint);
  let sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const sample of window) {
    const h = Math.max(Number(sample.offset.halfWidth), 1_000);
    const w = 1 / (h * h);
    const x = Number(sample.time) - t0;
    const y = Number(sample.offset.midpoint) - m0;
    sw += w; sx += w * x; sy += w * y; sxx += w * x * x; sxy += w * x * y;
  }
  const denominator = sw * sxx - sx * sx;
  return denominator > 0 ? (sw * sxy - sx * sy) / denominator : null;
}

/** Rate bounds from every pair of samples: `null` for too few, `false` for a contradiction. */
function measuredRate(window, configuration) {
  if (window.length < 2) return null;
  const phi = configuration.maxDrift;
  let lower = -Infinity;
  let upper = Infinity;
  for (let j = 1; j < window.length; j++) {
    const b = window[j];
    for (let i = 0; i < j; i++) {
      const a = window[i];
      const elapsed = Number(sub(b.time, a.time));
      if (!(elapsed > 0)) continue;
      const slack = phi * Number(a.span + b.span);
      lower = Math.max(lower, (Number(b.offset.lower) - Number(a.offset.upper) - slack) / elapsed);
      upper = Math.min(upper, (Number(b.offset.upper) - Number(a.offset.lower) + slack) / elapsed);
    }
  }
  if (!Number.isFinite(lower) || !Number.isFinite(upper)) return null;
  lower -= configuration.rateWander;
  upper += configuration.rateWander;
  if (!(lower <= upper)) return false;
  const bounded = new Rate(lower, upper).intersection(Rate.symmetric(configuration.maxDrift));
  if (!bounded) return false;
  return new Rate(bounded.lower, bounded.upper, slope(window) ?? 0);
}

/** Fits a window sorted by time, dropping older samples that contradict newer ones (in place). */
function fit(window, configuration) {
  for (;;) {
    const rate = measuredRate(window, configuration) || Rate.symmetric(configuration.maxDrift);
    const newest = window[window.length - 1];
    const { bounds: core, oldest } = newestAgreeing(window, newest.time, rate);
    if (oldest === 0) {
      const bounds = newestAgreeing(window, newest.time, rate, configuration.slew).bounds;
      return { source: newest.source, time: newest.time, bounds, core, rate };
    }
    window.splice(0, oldest);
  }
}

/** Marzullo's algorithm: the first region covered by the most intervals, and who covers it. */
function marzullo(intervals) {
  if (intervals.length === 0) return null;
  const edges = [];
  for (const interval of intervals) edges.push([interval.lower, true], [interval.upper, false]);
  edges.sort((a, b) => (a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] === b[1] ? 0 : a[1] ? -1 : 1));
  let best = 0, current = 0, start = 0n, end = 0n;
  edges.forEach(([offset, isStart], index) => {
    if (isStart) {
      current += 1;
      if (current > best) {
        best = current;
        start = offset;
        end = edges[index + 1][0];
      }
    } else {
      current -= 1;
    }
  });
  const region = new Interval(start, maxB(start, end));
  const members = [];
  intervals.forEach((interval, index) => {
    if (interval.lower <= region.lower && region.upper <= interval.upper) members.push(index);
  });
  return { region, count: best, members };
}

const byTime = (samples, sample) => {
  const index = samples.findIndex((s) => s.time > sample.time);
  return index < 0 ? samples.length : index;
};

/** A TypeError unless `sample` looks like what `makeSample` returns. */
function checkSample(sample, name) {
  const ok = sample !== null && typeof sample === 'object' && typeof sample.source === 'string' && sample.offset instanceof Interval
    && typeof sample.time === 'bigint' && typeof sample.span === 'bigint' && typeof sample.delay === 'bigint';
  if (!ok) throw new TypeError(`${name}: give a sample made by makeSample`);
}

/**
 * The estimator. `add(sample)` and `addMeasurement(samples)` return an outcome:
 * `{kind: 'calibrated'|'contradicted', calibration}`, `{kind: 'noMajority', sources, largestAgreeing}`
 * or `{kind: 'noSamples'}`.
 *
 * Measurements are numbered: `add(sample)` is a measurement of its own, `addMeasurement(samples)`
 * one measurement of several samples (one sync round of one source). A step is confirmed only by
 * suspects of at least two measurements, so one round cannot vouch for itself.
 */
export class IntersectionEstimator {
  #measurements = 0;

  constructor(options = {}) {
    this.configuration = estimatorConfiguration(options);
    this.records = new Map();
  }

  /** The sources followed, sorted. */
  get sources() { return [...this.records.keys()].sort(); }

  /** Takes one sample, as a measurement of its own. */
  add(sample) {
    checkSample(sample, 'sample');
    this.#measurements += 1;
    this.#insert(sample, this.#measurements);
    this.#expireLostSources();
    return this.outcome();
  }

  /**
   * Takes the samples of one measurement in order, each into its source's window as `add` would but
   * all under one measurement number, then votes once. `null` for no samples.
   */
  addMeasurement(samples) {
    if (!Array.isArray(samples)) throw new TypeError('samples: give an array of samples made by makeSample');
    samples.forEach((sample, index) => checkSample(sample, `samples[${index}]`));
    if (samples.length === 0) return null;
    this.#measurements += 1;
    for (const sample of samples) this.#insert(sample, this.#measurements);
    this.#expireLostSources();
    return this.outcome();
  }

  removeSource(source) {
    this.records.delete(source);
    return this.outcome();
  }

  /** Forgets everything (the monotonic clock can no longer be trusted against the old samples). */
  reset() { this.records.clear(); }

  /** Puts a sample into its source's window, or holds it as a suspect. */
  #insert(sample, measurement) {
    const candidate = [...(this.records.get(sample.source)?.window ?? [])];
    candidate.splice(byTime(candidate, sample), 0, sample);
    while (candidate.length > this.configuration.windowSize) candidate.splice(leastUseful(candidate), 1);
    const kept = candidate.length;
    const sourceFit = fit(candidate, this.configuration);
    const dropped = kept - candidate.length;
    const agreeing = candidate.length - 1;
    if (dropped === 0 || (candidate[candidate.length - 1] === sample && agreeing > dropped)) {
      this.records.set(sample.source, { window: candidate, fit: sourceFit, suspects: [] });
    } else {
      this.#hold(sample, measurement);
    }
  }

  /**
   * Holds a contradicting sample with its measurement number. When the held suspects that agree
   * with it come from at least two measurements, the source stepped: its window becomes them.
   */
  #hold(sample, measurement) {
    const record = this.records.get(sample.source);
    if (!record) return;
    const held = [...record.suspects];
    held.splice(byTime(held.map((suspect) => suspect.sample), sample), 0, { sample, measurement });
    if (held.length > this.configuration.windowSize) held.splice(0, held.length - this.configuration.windowSize);
    const confirmed = held.map((suspect) => suspect.sample);
    const sourceFit = fit(confirmed, this.configuration);
    // The fit drops the oldest suspects that contradict newer ones: the survivors are the newest.
    const measurements = new Set(held.slice(held.length - confirmed.length).map((suspect) => suspect.measurement));
    if (confirmed.length >= 2 && confirmed.includes(sample) && measurements.size >= 2) {
      this.records.set(sample.source, { window: confirmed, fit: sourceFit, suspects: [] });
    } else {
      this.records.set(sample.source, { ...record, suspects: held });
    }
  }

  #expireLostSources() {
    const fits = [...this.records.values()].map((r) => r.fit);
    if (fits.length === 0) return;
    const newest = fits.reduce((m, f) => maxB(m, f.time), fits[0].time);
    for (const f of fits) if (sub(newest, f.time) > this.configuration.sourceTimeout) this.records.delete(f.source);
  }

  /** Combines the per-source fits by majority. */
  outcome() {
    const all = this.sources.map((source) => this.records.get(source).fit);
    if (all.length === 0) return { kind: 'noSamples' };
    const time = all.reduce((m, f) => maxB(m, f.time), all[0].time);
    const slew = this.configuration.slew;
    const intervals = all.map((f) => {
      const elapsed = sub(time, f.time);
      return f.rate.age(f.bounds, Number(elapsed)).widened(slew.widening(elapsed));
    });
    const selection = marzullo(intervals);
    if (selection.count * 2 <= all.length) return { kind: 'noMajority', sources: all.length, largestAgreeing: selection.count };
    const members = selection.members.map((index) => all[index]);
    let rate = members[0].rate;
    let hull = members[0].rate;
    let core = selection.region;
    for (const member of members) {
      hull = new Rate(Math.min(hull.lower, member.rate.lower), Math.max(hull.upper, member.rate.upper));
      rate = rate.intersection(member.rate) ?? hull;
      if (core) core = core.intersection(member.rate.age(member.core, Number(sub(time, member.time))));
    }
    const meanRate = members.reduce((s, m) => s + m.rate.estimate, 0) / members.length;
    rate = new Rate(rate.lower, rate.upper, meanRate);
    const offset = selection.region;
    const calibration = {
      time, offset, estimate: offset.clamp((core ?? offset).midpoint), rate, sources: members.map((m) => m.source), slew,
    };
    const contradicted = members.some((m) => this.records.get(m.source).suspects.length > 0);
    return { kind: contradicted ? 'contradicted' : 'calibrated', calibration };
  }
}

/** The calibration's estimate and bounds of θ at a monotonic instant (ns). */
function offsetAt(calibration, instant) {
  const elapsed = sub(instant, calibration.time);
  const bounds = calibration.rate.age(calibration.offset, Number(elapsed)).widened(calibration.slew.widening(elapsed));
  return { estimate: bounds.clamp(add(calibration.estimate, driftTerm(calibration.rate.estimate, elapsed))), bounds };
}

/** rate × elapsed, floored, in the fixed point the Swift package uses (rate · 2⁶²). */
function driftTerm(rate, elapsed) {
  if (Math.abs(rate) <= DRIFT_LIMIT) return sat((BigInt(Math.trunc(rate * 2 ** 62)) * elapsed) >> 62n);
  return fromDouble(rate * Number(elapsed));
}

/**
 * Runs the estimator over a stream written by `timesync simulate --write-streams` (integers as
 * decimal strings) and returns its outcome after each measurement (each sample, when the stream
 * names no measurements) as a row of the same format.
 */
export function replayStream(stream) {
  const c = stream.configuration;
  const estimator = new IntersectionEstimator({
    maxDrift: c.maxDrift, rateWander: c.rateWander, windowSize: c.windowSize,
    sourceTimeout: BigInt(c.sourceTimeout), serverSlew: c.serverSlew, serverSlewLimit: BigInt(c.serverSlewLimit),
  });
  const samples = stream.samples.map(([source, lower, upper, time, span, delay]) => makeSample({
    source, lower: BigInt(lower), upper: BigInt(upper), time: BigInt(time), span: BigInt(span), delay: BigInt(delay),
  }));
  // One outcome per measurement: the stream says how many samples each holds, or one each.
  const sizes = stream.measurements ?? samples.map(() => 1);
  let next = 0;
  return sizes.map((size) => {
    const batch = samples.slice(next, next + size);
    next += size;
    const outcome = size === 1 ? estimator.add(batch[0]) : estimator.addMeasurement(batch);
    if (!outcome.calibration) return [outcome.kind];
    const { time: anchor, offset, estimate, rate } = outcome.calibration;
    return [outcome.kind, String(anchor), String(offset.lower), String(offset.upper), String(estimate),
      String(rate.lower), String(rate.upper), String(rate.estimate)];
  });
}

// ————————————————————————————————————————————————————————————————————————————————
// Wire formats: the `TimeSync-Time` header (an RFC 9651 dictionary), HTTP dates, `Retry-After`.
// ————————————————————————————————————————————————————————————————————————————————

/** A header that cannot be read; `code` names what was wrong with it. */
export class HeaderError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'HeaderError';
    this.code = code;
  }
}

/**
 * Parses an RFC 9651 structured-field dictionary into a Map of member → {type, value}; parameters
 * are read and dropped. Integers are BigInts. Throws a `HeaderError` for anything malformed.
 */
export function parseDictionary(text) {
  const input = String(text);
  let i = 0;
  const fail = (what) => { throw new HeaderError('malformed', `not a structured-field dictionary: ${what} at character ${i}`); };
  const peek = () => input[i];
  const skipSP = () => { while (input[i] === ' ') i++; };
  const skipOWS = () => { while (input[i] === ' ' || input[i] === '\t') i++; };
  const key = () => {
    if (!/[a-z*]/.test(peek() ?? '')) fail('a key must start with a lowercase letter or *');
    const start = i;
    while (/[a-z0-9_\-.*]/.test(peek() ?? '')) i++;
    return input.slice(start, i);
  };
  const bareItem = () => {
    const c = peek();
    if (c === '-' || /[0-9]/.test(c ?? '')) {
      const match = /^-?[0-9]{1,15}(\.[0-9]{1,3})?/.exec(input.slice(i));
      if (!match || (match[1] === undefined && /[0-9.]/.test(input[i + match[0].length] ?? ''))) fail('a number too long or malformed');
      i += match[0].length;
      return match[1] === undefined ? { type: 'integer', value: BigInt(match[0]) } : { type: 'decimal', value: Number(match[0]) };
    }
    if (c === '"') {
      i++;
      let value = '';
      for (;;) {
        const ch = input[i++];
        if (ch === undefined) fail('an unterminated string');
        if (ch === '\\') {
          const next = input[i++];
          if (next !== '"' && next !== '\\') fail('a bad escape in a string');
          value += next;
        } else if (ch === '"') {
          return { type: 'string', value };
        } else if (ch < ' ' || ch > '~') {
          fail('a character not allowed in a string');
        } else {
          value += ch;
        }
      }
    }
    if (/[A-Za-z*]/.test(c ?? '')) {
      const match = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/.exec(input.slice(i));
      i += match[0].length;
      return { type: 'token', value: match[0] };
    }
    if (c === ':') {
      const end = input.indexOf(':', i + 1);
      if (end < 0 || !/^[A-Za-z0-9+/=]*$/.test(input.slice(i + 1, end))) fail('a malformed byte sequence');
      const value = input.slice(i + 1, end);
      i = end + 1;
      return { type: 'bytes', value };
    }
    if (c === '?') {
      const b = input[i + 1];
      if (b !== '0' && b !== '1') fail('a malformed boolean');
      i += 2;
      return { type: 'boolean', value: b === '1' };
    }
    if (c === '@') {
      // A date is '@' and an integer: checked before reading, so that '@@@…' is no deeper a call.
      i++;
      if (!/[-0-9]/.test(peek() ?? '')) fail('a date that is not an integer');
      const item = bareItem();
      if (item.type !== 'integer') fail('a date that is not an integer');
      return { type: 'date', value: item.value };
    }
    return fail('an unknown item');
  };
  const parameters = () => {
    while (peek() === ';') {
      i++;
      skipSP();
      key();
      if (peek() === '=') { i++; bareItem(); }
    }
  };
  const member = () => {
    if (peek() === '(') {
      i++;
      const items = [];
      for (;;) {
        skipSP();
        if (peek() === ')') { i++; break; }
        items.push(bareItem());
        parameters();
        if (peek() !== ' ' && peek() !== ')') fail('an inner list item not followed by a space or )');
      }
      parameters();
      return { type: 'list', value: items };
    }
    const item = bareItem();
    parameters();
    return item;
  };
  const result = new Map();
  skipSP();
  if (i === input.length) return result;
  for (;;) {
    const name = key();
    let value = { type: 'boolean', value: true };
    if (peek() === '=') { i++; value = member(); } else { parameters(); }
    result.set(name, value);
    skipOWS();
    if (i === input.length) return result;
    if (peek() !== ',') fail('members not separated by a comma');
    i++;
    skipOWS();
    if (i === input.length) fail('a trailing comma');
  }
}

/**
 * Reads a `TimeSync-Time` value: `{t2, t3, uncertainty, nonce}` in nanoseconds since 1970 (BigInt).
 * Throws a `HeaderError` when it is not version 1 or a required member is missing or mistyped.
 */
export function parseTimeSyncHeader(text) {
  const dictionary = parseDictionary(text);
  const integer = (name, required) => {
    const member = dictionary.get(name);
    if (member === undefined && !required) return undefined;
    if (member === undefined) throw new HeaderError('missingMember', `TimeSync-Time has no '${name}' member`);
    if (member.type !== 'integer') throw new HeaderError('badMember', `TimeSync-Time's '${name}' is not an integer`);
    return member.value;
  };
  const version = integer('v', true);
  if (version !== 1n) throw new HeaderError('version', `TimeSync-Time version ${version} is not 1: update the client`);
  const seconds = integer('s', true);
  const t2 = integer('t2', true);
  const t3 = integer('t3', true);
  const uncertainty = integer('u', false) ?? 0n;
  if (uncertainty < 0n) throw new HeaderError('badMember', "TimeSync-Time's 'u' is negative");
  if (uncertainty > 16_000_000_000n) throw new HeaderError('badMember', "TimeSync-Time's 'u' is over 16 s");
  if (t3 < t2) throw new HeaderError('reversed', 'TimeSync-Time says the response left before the request arrived (t3 < t2)');
  const n = dictionary.get('n');
  if (n !== undefined && n.type !== 'string') throw new HeaderError('badMember', "TimeSync-Time's 'n' is not a string");
  const base = seconds * 1_000_000_000n;
  return { t2: base + t2, t3: base + t3, uncertainty, nonce: n?.value };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/**
 * Parses an HTTP date (IMF-fixdate, or the obsolete RFC 850 and asctime forms RFC 9110 §5.6.7 asks
 * recipients to accept) into whole seconds since 1970 (a Number). `referenceSeconds` resolves an
 * RFC 850 two-digit year (a date more than 50 years ahead is taken as the past century).
 */
export function parseHTTPDate(text, referenceSeconds = Date.now() / 1000) {
  const value = String(text).trim();
  let m;
  let parts;
  if ((m = /^([A-Z][a-z]{2}), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(value))) {
    parts = { day: DAYS.indexOf(m[1]), date: +m[2], month: MONTHS.indexOf(m[3]), year: +m[4], time: m.slice(5, 8) };
  } else if ((m = /^([A-Z][a-z]+), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(value))) {
    const referenceYear = new Date(referenceSeconds * 1000).getUTCFullYear();
    let year = Math.floor(referenceYear / 100) * 100 + +m[4];
    if (year > referenceYear + 50) year -= 100;
    parts = { day: LONG_DAYS.indexOf(m[1]), date: +m[2], month: MONTHS.indexOf(m[3]), year, time: m.slice(5, 8) };
  } else if ((m = /^([A-Z][a-z]{2}) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/.exec(value))) {
    parts = { day: DAYS.indexOf(m[1]), date: +m[3].trim(), month: MONTHS.indexOf(m[2]), year: +m[7], time: m.slice(4, 7) };
  } else {
    throw new HeaderError('malformed', `'${value.slice(0, 40)}' is not an HTTP date (like 'Sun, 06 Nov 1994 08:49:37 GMT')`);
  }
  const [hour, minute, second] = parts.time.map(Number);
  if (parts.month < 0 || parts.day < 0 || hour > 23 || minute > 59 || second > 60) throw new HeaderError('malformed', `'${value}' has a field out of range`);
  const milliseconds = Date.UTC(parts.year, parts.month, parts.date, hour, minute, Math.min(second, 59));
  const check = new Date(milliseconds);
  if (parts.year < 1900 || check.getUTCDate() !== parts.date || check.getUTCMonth() !== parts.month) {
    throw new HeaderError('malformed', `'${value}' is not a real date`);
  }
  if (check.getUTCDay() !== parts.day) throw new HeaderError('weekday', `'${value}' names the wrong day of the week`);
  return milliseconds / 1000;
}

/**
 * A `Retry-After` value as a wait in milliseconds, from 0 to a day (a longer wait, however many
 * digits, reads as a day): delay-seconds (leading zeros allowed, as RFC 9110 allows), or an HTTP
 * date measured against `nowSeconds` (the best estimate of server time). `null` when it cannot be
 * read.
 */
export function parseRetryAfter(text, nowSeconds) {
  const value = String(text ?? '').trim();
  if (/^\d+$/.test(value)) {
    const digits = value.replace(/^0+(?=\d)/, '');
    return (digits.length > 5 ? 86_400 : Math.min(Number(digits), 86_400)) * 1000;
  }
  try {
    return Math.min(Math.max(0, parseHTTPDate(value, nowSeconds) - nowSeconds), 86_400) * 1000;
  } catch {
    return null;
  }
}

// ————————————————————————————————————————————————————————————————————————————————
// The client: sources, the monotonic time base, polling, readings, countdowns and events.
// ————————————————————————————————————————————————————————————————————————————————

/** A failed measurement; `code` names the cause and the message says what to do. */
export class TimeSyncError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = 'TimeSyncError';
    this.code = code;
  }
}

const NS_PER_MS = 1_000_000n;

/** Milliseconds (a Number, maybe fractional) to BigInt nanoseconds, exact to the nanosecond. */
export function msToNs(ms) {
  if (!Number.isFinite(ms)) throw new RangeError(`${ms} is not a finite number of milliseconds`);
  const whole = Math.floor(ms);
  return BigInt(whole) * NS_PER_MS + BigInt(Math.round((ms - whole) * 1e6));
}

/** BigInt nanoseconds to milliseconds (a Number, to within a nanosecond for today's dates). */
export function nsToMs(ns) {
  const whole = ns / NS_PER_MS;
  return Number(whole) + Number(ns - whole * NS_PER_MS) / 1e6;
}

/** The browser's clocks: `monotonic()` counts from page load and ignores wall-clock changes. */
const browserClock = {
  monotonic: () => performance.now(),
  wall: () => Date.now(),
};

const DEFAULTS = {
  pollInterval: 15 * 60_000, // ms between polls once synchronized
  burst: 4, // requests per source when a sync starts from nothing
  burstSpacing: 200, // ms between them
  dateRequests: 8, // at most this many timed requests refine a `Date` source per sync
  timeout: 5_000, // ms: one deadline per request
  resolution: 0.1, // ms: browsers may coarsen performance.now() to 100 µs; bounds widen by it
  minimumAgreeingSources: 1,
  budget: { requests: 120, per: 3_600_000 }, // at most this many requests per rolling window
  minResyncInterval: 2_000, // ms: event-driven resyncs (visibility, online, clock jump) no closer than this
  watchInterval: 1_000, // ms between checks of the monotonic clock against the wall clock
  jumpTolerance: 500, // ms: a difference between elapsed wall and monotonic time larger than this is a jump
};

/** The settings, each checked: a TypeError names the first one out of range. */
function checkedOptions(options) {
  const check = (name, value, min, max, integer = false) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
      throw new TypeError(`${name} ${value}: give ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}`);
    }
  };
  const day = 86_400_000;
  check('pollInterval', options.pollInterval, 1_000, day);
  check('burst', options.burst, 1, 16, true);
  check('burstSpacing', options.burstSpacing, 0, 60_000);
  check('dateRequests', options.dateRequests, 0, 32, true);
  check('timeout', options.timeout, 1, 120_000);
  check('resolution', options.resolution, 0, 1_000);
  check('minimumAgreeingSources', options.minimumAgreeingSources, 1, 64, true);
  check('budget.requests', options.budget.requests, 1, 100_000, true);
  check('budget.per', options.budget.per, 1_000, day);
  check('minResyncInterval', options.minResyncInterval, 0, day);
  check('watchInterval', options.watchInterval, 100, 60_000);
  check('jumpTolerance', options.jumpTolerance, 10, 60_000);
  return options;
}

/** Where a time comes from: a URL and which header carries the time. */
function normalizeSource(source) {
  const spec = typeof source === 'string' ? { url: source } : { ...source };
  if (!spec.url) throw new TypeError('a source needs a url');
  spec.kind = spec.kind ?? (spec.header ? 'timestamp' : 'timesync');
  if (!['timesync', 'timestamp', 'date'].includes(spec.kind)) throw new TypeError(`unknown source kind '${spec.kind}': use timesync, timestamp or date`);
  spec.unit = spec.unit ?? 'ms';
  if (spec.kind === 'timestamp' && !spec.header) throw new TypeError("a 'timestamp' source needs the header's name");
  if (spec.header !== undefined && !(typeof spec.header === 'string' && /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(spec.header))) {
    throw new TypeError(`header '${String(spec.header)}': give a header's name, such as Response-Timestamp`);
  }
  if (!{ s: 1, ms: 1, us: 1, ns: 1 }[spec.unit]) throw new TypeError(`unit '${spec.unit}': use s, ms, us or ns`);
  if (spec.kind === 'timesync') {
    spec.fallback = spec.fallback ?? 'none';
    if (!['none', 'date'].includes(spec.fallback)) throw new TypeError(`fallback '${spec.fallback}': use none or date`);
  } else if (spec.fallback !== undefined) {
    throw new TypeError(`fallback applies to 'timesync' sources only, not to a '${spec.kind}' source`);
  }
  spec.name = spec.name ?? String(spec.url);
  return spec;
}

const UNIT_NS = { s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };

/**
 * Server time in a web page, with an honest error bound.
 *
 * ```js
 * const clock = new TimeSyncClient({ sources: ['https://api.example.com/time'] });
 * clock.start();
 * clock.reading();   // { time, earliest, latest, error, status, … } in ms since 1970
 * clock.position(sale.start, sale.end);   // 'before' | 'within' | 'after' | 'uncertain'
 * ```
 *
 * Events: `sync` (a sync finished), `sample`, `calibrated`, `statuschange`, `error`, `clockjump`
 * (the device clock was set back), `suspended` (the device clock ran ahead of the monotonic clock:
 * set ahead, or the device slept with the monotonic clock stopped), `resumed` (the page was frozen).
 */
export class TimeSyncClient extends EventTarget {
  #options;
  #sources;
  #clock;
  #fetch;
  #setTimeout;
  #clearTimeout;
  #random;
  #resourceTiming;
  #estimator;
  #calibration = null; // the newest usable calibration
  #status = 'unsynchronized';
  #pause = null; // after a suspected pause of the monotonic clock: { allowance (ns) }
  #requests = []; // monotonic ms of recent requests, for the budget
  #timers = new Set();
  #pollTimer = null;
  #running = false;
  #syncing = null;
  #followUp = null; // the reason of a resync asked for while a sync was under way: it runs after that one
  #lastSync = -Infinity;
  #watch = null; // { mono, wall } at the last check
  #retryAt = new Map(); // source name → monotonic ms before which it is not asked
  #lowestDelay = new Map(); // source name → ns
  #listeners = [];
  #sleepers = new Set(); // pending waits of a sync, ended by stop()
  #epoch = 0; // counts stops: a sync started before one gives up after its next wait
  #resets = 0; // counts estimator resets: a sample whose request left before one is not taken
  #stamped = new Set(); // names of the 'timesync' sources that have answered with TimeSync-Time

  /**
   * @param {object} options `sources` (URLs of `/time` endpoints, or `{url, kind, header, unit, name, fallback}`),
   *   and optionally the settings in `TimeSyncClient.defaults`, `estimator` (drift and window
   *   settings), and for tests `clock`, `fetch`, `setTimeout`, `clearTimeout`, `random`, `events`.
   */
  constructor(options = {}) {
    super();
    this.#options = checkedOptions({ ...DEFAULTS, ...options, budget: { ...DEFAULTS.budget, ...(options.budget ?? {}) } });
    const sources = options.sources ?? [];
    if (sources.length === 0) throw new TypeError('give at least one source, such as your server\'s /time URL');
    this.#sources = sources.map(normalizeSource);
    if (new Set(this.#sources.map((s) => s.name)).size !== this.#sources.length) throw new TypeError('two sources have the same name');
    this.#clock = options.clock ?? browserClock;
    this.#fetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
    this.#setTimeout = options.setTimeout ?? ((fn, ms) => globalThis.setTimeout(fn, ms));
    this.#clearTimeout = options.clearTimeout ?? ((id) => globalThis.clearTimeout(id));
    this.#random = options.random ?? (() => (globalThis.crypto?.getRandomValues ? globalThis.crypto.getRandomValues(new Uint32Array(1))[0] / 2 ** 32 : Math.random()));
    this.#estimator = new IntersectionEstimator(options.estimator ?? {});
    this.#resourceTiming = options.resourceTiming ?? ((url) => globalThis.performance?.getEntriesByName?.(url, 'resource') ?? []);
    for (const source of this.#sources) {
      try {
        source.absoluteURL = new URL(source.url, globalThis.location?.href).href;
      } catch { /* a relative URL outside a page: named as given */ }
    }
  }

  /** The default settings. */
  static get defaults() { return structuredClone(DEFAULTS); }

  /** The sources, as normalized. */
  get sources() { return this.#sources.map((s) => ({ ...s })); }

  /** `synchronized`, `provisional`, `noMajority`, `suspended` or `unsynchronized`. */
  get status() { return this.#status; }

  /**
   * Starts: a first sync at once, polls, and resyncs when the page is shown again, comes back
   * online or the device clock jumps. Idempotent.
   */
  start() {
    if (this.#running) return this;
    this.#running = true;
    const events = this.#options.events ?? { document: globalThis.document, window: globalThis.window };
    const on = (target, type, handler) => {
      if (!target?.addEventListener) return;
      target.addEventListener(type, handler);
      this.#listeners.push(() => target.removeEventListener(type, handler));
    };
    on(events.document, 'visibilitychange', () => {
      this.#check();
      if (events.document.visibilityState === 'visible') this.#resync('visible');
    });
    on(events.document, 'resume', () => { this.#check(); this.#resync('resume'); });
    on(events.window, 'online', () => this.#resync('online'));
    on(events.window, 'pageshow', (event) => { if (event.persisted) { this.#check(); this.#resync('pageshow'); } });
    this.#watch = { mono: this.#clock.monotonic(), wall: this.#clock.wall() };
    this.#scheduleWatch();
    this.sync('start').catch(() => {});
    return this;
  }

  /** Stops polling and listening, and ends a sync under way after its current request; readings
   * and countdowns go on from the last calibration. */
  stop() {
    this.#running = false;
    this.#epoch += 1;
    this.#followUp = null;
    for (const done of [...this.#sleepers]) done();
    for (const remove of this.#listeners.splice(0)) remove();
    for (const id of this.#timers) this.#clearTimeout(id);
    this.#timers.clear();
    this.#pollTimer = null;
  }

  /** Server time now in ms since 1970, like `Date.now()` (the device's clock until synchronized). */
  now() { return this.reading().time; }

  /**
   * The server time now, with its bounds: `{time, earliest, latest, error, status, age, sources}`
   * in ms since 1970 (`earliest`/`latest` ±Infinity when unbounded), and the same instants in
   * nanoseconds as BigInts (`timeNs`, `earliestNs`, `latestNs`).
   */
  reading() {
    this.#check();
    const mono = this.#clock.monotonic();
    const calibration = this.#calibration;
    if (!calibration) {
      const time = this.#clock.wall();
      return { time, earliest: -Infinity, latest: Infinity, error: Infinity, status: 'unsynchronized', age: Infinity, sources: [], timeNs: msToNs(time), earliestNs: null, latestNs: null };
    }
    const instant = msToNs(mono);
    const { estimate, bounds } = offsetAt(calibration, instant);
    const widened = this.#pause ? bounds.widened(0n, this.#pause.allowance) : bounds;
    const timeNs = instant + estimate;
    const earliestNs = instant + widened.lower;
    const latestNs = instant + widened.upper;
    return {
      time: nsToMs(timeNs), earliest: nsToMs(earliestNs), latest: nsToMs(latestNs),
      error: nsToMs(widened.halfWidth), status: this.#status, age: nsToMs(instant - calibration.time),
      sources: [...calibration.sources], timeNs, earliestNs, latestNs,
    };
  }

  /**
   * Where now lies relative to the window [start, end) (ms since 1970, or Dates): `before`,
   * `within`, `after`, or `uncertain` when the bounds straddle an edge or the clock cannot vouch.
   * `end` Infinity leaves the window open-ended, `start` -Infinity open at the start. A NaN, an
   * invalid Date or anything but a number or a Date is a TypeError.
   */
  position(start, end) {
    const from = instantArgument('start', start);
    const to = instantArgument('end', end);
    const r = this.reading();
    if (!vouchesForEarliest(r.status)) return 'uncertain';
    if (reached(r.earliestNs, to)) return 'after';
    if (r.status !== 'synchronized') return 'uncertain';
    if (!reached(r.latestNs, from)) return 'before';
    if (reached(r.earliestNs, from) && !reached(r.latestNs, to)) return 'within';
    return 'uncertain';
  }

  /**
   * Whether server time has certainly reached `instant` (ms since 1970, or a Date; -Infinity has
   * always passed, Infinity never). A NaN, an invalid Date or anything else is a TypeError.
   */
  hasCertainlyPassed(instant) {
    const at = instantArgument('instant', instant);
    const r = this.reading();
    return vouchesForEarliest(r.status) && reached(r.earliestNs, at);
  }

  /**
   * Counts down to `target` (server time, ms since 1970 or a Date), calling `onTick` at each whole
   * second of the remaining time and whenever the page comes back. It runs on the monotonic clock:
   * changing the device clock does not move it, and after a suspension it picks up where server
   * time is. Each tick: `{remaining, seconds, formatted, finished, certain, error, status, reading}`;
   * `finished` once the target has certainly passed (or, unsynchronized, by the device clock).
   * Ticks come no more often than each `interval` ms (default 1000, from 1 to a day) and each whole
   * second of the remaining time, and at once after a calibration, a status change, a suspension or
   * a resumption. The target must be finite. Returns `{stop()}`.
   */
  countdown(target, onTick, { interval = 1000 } = {}) {
    const targetMs = instantArgument('target', target);
    if (!Number.isFinite(targetMs)) throw new TypeError(`target ${targetMs}: give a finite time (ms since 1970 or a Date)`);
    if (typeof onTick !== 'function') throw new TypeError('onTick: give a function, called with each tick');
    if (typeof interval !== 'number' || !(interval >= 1 && interval <= 86_400_000)) {
      throw new TypeError(`interval ${String(interval)}: give a number of ms from 1 to 86400000`);
    }
    let timer = null;
    let stopped = false;
    let waking = false;
    const tick = () => {
      if (stopped) return;
      const reading = this.reading();
      const remaining = targetMs - reading.time;
      const certainlyPassed = vouchesForEarliest(reading.status) && reading.earliest >= targetMs;
      const finished = certainlyPassed || (reading.status === 'unsynchronized' && remaining <= 0);
      const seconds = finished ? 0 : Math.max(Math.ceil(remaining / 1000), remaining > 0 ? 1 : 0);
      onTick({
        remaining: Math.max(0, remaining), seconds, formatted: formatSeconds(seconds), finished, certain: certainlyPassed,
        error: reading.error, status: reading.status, reading,
      });
      if (finished) { stop(); return; }
      // Wake at the next whole second of the remaining time (or after `interval`, whichever first).
      // Once it is due by the estimate, wake when the earliest bound passes it too. When waiting
      // cannot finish it (the clock does not vouch), only `interval` or an event brings a tick.
      let untilNext = interval;
      if (remaining > 0) untilNext = (remaining % 1000 || 1000) + 1;
      else if (vouchesForEarliest(reading.status) && reading.earliest < targetMs) untilNext = targetMs - reading.earliest + 1;
      timer = this.#setTimeout(tick, Math.min(untilNext, interval));
    };
    // The events of one change (a calibration and its status change) bring one tick.
    const wake = () => {
      if (stopped || waking) return;
      waking = true;
      queueMicrotask(() => {
        waking = false;
        if (stopped) return;
        if (timer !== null) { this.#clearTimeout(timer); timer = null; }
        tick();
      });
    };
    const wakers = ['calibrated', 'statuschange', 'suspended', 'resumed'];
    for (const type of wakers) this.addEventListener(type, wake);
    const stop = () => {
      stopped = true;
      if (timer !== null) this.#clearTimeout(timer);
      for (const type of wakers) this.removeEventListener(type, wake);
    };
    tick();
    return { stop };
  }

  /**
   * Measures now: a burst from every source (or one request each once synchronized), `Date`
   * sources refined across second boundaries. Resolves to the number of samples taken.
   */
  sync(reason = 'manual') {
    if (this.#syncing) return this.#syncing;
    this.#syncing = (async () => {
      this.#lastSync = this.#clock.monotonic();
      const burst = this.#calibration && this.#status !== 'suspended' ? 1 : this.#options.burst;
      const counts = await Promise.all(this.#sources.map((source) => this.#measureSource(source, burst)));
      const samples = counts.reduce((a, b) => a + b, 0);
      this.#emit('sync', { reason, samples, status: this.#status });
      return samples;
    })().finally(() => {
      this.#syncing = null;
      const followUp = this.#followUp;
      this.#followUp = null;
      if (followUp !== null && this.#running) this.sync(followUp).catch(() => {});
      else this.#schedulePoll();
    });
    return this.#syncing;
  }

  // — measuring —

  /**
   * One sync round of one source: its requests, then their samples into the estimator as one
   * measurement (a round cannot confirm a step on its own). Resolves to the number of samples.
   */
  async #measureSource(source, burst) {
    const epoch = this.#epoch;
    // { sample, resets }: the samples, each with the estimator resets before its request left. A
    // request under way across a pause of the monotonic clock (seen, and the estimator reset, before
    // its answer came) measured the offset from before the pause: its answer is not taken.
    const round = [];
    const fresh = () => round.filter((entry) => entry.resets === this.#resets).map((entry) => entry.sample);
    const measure = async () => {
      let last = null;
      for (let i = 0; i < burst; i++) {
        if (i > 0) await this.#sleep(this.#options.burstSpacing);
        if (this.#epoch !== epoch) return;
        const resets = this.#resets;
        const sample = await this.#request(source);
        if (!sample) break;
        round.push({ sample, resets });
        last = sample;
      }
      // A `Date` source (one-second resolution): time requests so the server's second boundary falls
      // inside them; each well-placed request halves the interval, down to about the round trip.
      for (let i = 0; last?.resolution >= 1_000_000_000n && i < this.#options.dateRequests; i++) {
        const plan = this.#nextDateRequest(source, fresh());
        if (plan === null) break;
        await this.#sleep(plan);
        if (this.#epoch !== epoch) return;
        const resets = this.#resets;
        last = await this.#request(source);
        if (last) round.push({ sample: last, resets });
      }
    };
    await measure();
    // Samples taken before the estimator was reset (a suspected pause) may be off by the pause.
    const samples = fresh();
    this.#take(samples);
    return samples.length;
  }

  /**
   * ms to wait before the next timed `Date` request, or null when it cannot narrow the bounds: the
   * bounds are those of the source's window and this round's samples (`round`) fitted together.
   */
  #nextDateRequest(source, round) {
    const lowest = this.#lowestDelay.get(source.name);
    if (round.length === 0 || lowest === undefined) return null;
    const window = [...(this.#estimator.records.get(source.name)?.window ?? [])];
    for (const sample of round) window.splice(byTime(window, sample), 0, sample);
    const sourceFit = fit(window, this.#estimator.configuration);
    const now = msToNs(this.#clock.monotonic());
    const bounds = Rate.symmetric(this.#estimator.configuration.maxDrift).age(sourceFit.bounds, Number(now - sourceFit.time));
    if (bounds.width <= 2n * lowest + 1_000_000n) return null;
    const halfDelay = lowest / 2n;
    const earliest = now + 2_000_000n;
    const estimate = bounds.midpoint;
    const serverAtMidpoint = earliest + halfDelay + estimate;
    const second = 1_000_000_000n;
    const floor = serverAtMidpoint >= 0n ? serverAtMidpoint / second : (serverAtMidpoint - second + 1n) / second;
    const midpoint = (floor + 1n) * second - estimate;
    const send = maxB(earliest, midpoint - halfDelay);
    return nsToMs(send - now);
  }

  /** One request: a sample (not yet taken into the estimator), or null (an `error` event says why). */
  async #request(source) {
    const now = this.#clock.monotonic();
    const retryAt = this.#retryAt.get(source.name);
    if (retryAt !== undefined && now < retryAt) {
      this.#fail(source, new TimeSyncError('rateLimited', `${source.name} asked to wait ${Math.ceil((retryAt - now) / 1000)} s more (Retry-After); it is not asked before then`));
      return null;
    }
    if (!this.#spend(now)) {
      const { requests, per } = this.#options.budget;
      this.#fail(source, new TimeSyncError('budget', `the request budget (${requests} per ${per / 1000} s) is spent; the next poll waits for it`));
      return null;
    }
    const nonce = source.kind === 'timesync' ? this.#nonce() : undefined;
    const controller = typeof AbortController === 'function' ? new AbortController() : undefined;
    let timedOut = false;
    const deadline = this.#setTimeout(() => { timedOut = true; controller?.abort(); }, this.#options.timeout);
    const t1 = this.#clock.monotonic();
    let response;
    try {
      response = await this.#fetch(source.url, {
        method: 'GET', cache: 'no-store', credentials: 'omit', headers: nonce ? { 'TimeSync-Nonce': `"${nonce}"` } : {}, signal: controller?.signal,
      });
    } catch (error) {
      this.#clearTimeout(deadline);
      this.#fail(source, timedOut
        ? new TimeSyncError('timeout', `${source.name} did not answer within ${this.#options.timeout} ms; check the URL and the network`)
        : new TimeSyncError('network', `${source.name} could not be reached (${error?.message ?? error}); check the URL, the network and the server's CORS settings`, { cause: error }));
      return null;
    }
    const t4 = this.#clock.monotonic();
    // A small body is read to its end, so that the browser's Resource Timing entry for this request
    // is there: it says when the request left and the answer's first byte arrived, inside [t1, t4].
    const length = Number(response.headers.get('Content-Length') ?? Number.NaN);
    let timing = null;
    if (length >= 0 && length <= 65_536 && typeof response.arrayBuffer === 'function') {
      try {
        await response.arrayBuffer();
        timing = this.#timingOf(source, t1, t4);
      } catch { /* the body failed: time the exchange from the script's side */ }
    } else {
      try { response.body?.cancel?.().catch?.(() => {}); } catch { /* the body is not needed */ }
    }
    this.#clearTimeout(deadline);
    try {
      const sample = this.#sampleFrom(source, response, nonce, timing?.sent ?? t1, timing?.received ?? t4);
      const lowest = this.#lowestDelay.get(sample.source);
      if (lowest === undefined || sample.delay < lowest) this.#lowestDelay.set(sample.source, sample.delay);
      return sample;
    } catch (error) {
      this.#fail(source, error);
      return null;
    }
  }

  /**
   * The request's own Resource Timing: `requestStart` (the request left; the server cannot have
   * received it before) and `responseStart` (the first byte arrived; the server stamped its reply
   * before). Only an entry inside [t1, t4] counts, and only when it is the one such entry for the
   * URL (another fetch of the same URL at the same time could be taken for ours). Cross-origin, the
   * server must send `Timing-Allow-Origin`, or the browser gives zeros and t1 and t4 are used.
   */
  #timingOf(source, t1, t4) {
    let entries;
    try {
      entries = this.#resourceTiming(source.absoluteURL ?? source.url) ?? [];
    } catch {
      return null;
    }
    const slack = this.#options.resolution;
    const candidates = [...entries].filter((e) => e.startTime >= t1 - slack && e.startTime <= t4 + slack);
    if (candidates.length !== 1) return null;
    const { requestStart, responseStart } = candidates[0];
    if (!(requestStart > 0) || !(responseStart >= requestStart) || requestStart < t1 - slack || responseStart > t4 + slack) return null;
    return { sent: Math.max(t1, requestStart), received: Math.min(t4, responseStart) };
  }

  /** Reads a response into a sample; throws a TimeSyncError (or HeaderError) otherwise. */
  #sampleFrom(source, response, nonce, t1, t4) {
    const headers = response.headers;
    const status = response.status;
    if (status === 429 || status === 503) {
      const wait = parseRetryAfter(headers.get('Retry-After'), this.now() / 1000) ?? 60_000;
      this.#retryAt.set(source.name, this.#clock.monotonic() + wait);
      throw new TimeSyncError('rateLimited', `${source.name} answered ${status}: not asked again for ${Math.round(wait / 1000)} s`);
    }
    const age = headers.get('Age');
    if (age !== null && !/^\s*0+\s*$/.test(age)) throw new TimeSyncError('cached', `a cache answered for ${source.name} (Age: ${age}); the time is old: serve /time with Cache-Control: no-store`);
    const resolution = msToNs(this.#options.resolution);
    const t1ns = msToNs(t1);
    const t4ns = msToNs(t4);
    if (t4ns < t1ns) throw new TimeSyncError('sample', 'the monotonic clock went backwards during the request');
    const span = t4ns - t1ns;
    const stamp = source.kind === 'timesync' ? headers.get('TimeSync-Time') : null;
    if (stamp !== null) {
      const header = parseTimeSyncHeader(stamp);
      if (nonce !== undefined && header.nonce !== nonce) {
        throw new TimeSyncError('nonce', `${source.name}'s TimeSync-Time did not echo this request's nonce: a cache or a replay answered`);
      }
      const lower = header.t3 - t4ns - resolution - header.uncertainty;
      const upper = header.t2 - t1ns + resolution + header.uncertainty;
      const sample = { ...this.#checked(source, lower, upper, t4ns, span, span - (header.t3 - header.t2)), resolution: 0n };
      this.#stamped.add(source.name);
      return sample;
    }
    if (source.kind === 'timesync' && this.#stamped.has(source.name)) {
      throw new TimeSyncError('downgrade', `${source.name} answered without TimeSync-Time after answering with it: a stored or intercepted response is refused; check the server and any proxy or service worker in between`);
    }
    if (source.kind === 'timesync' && source.fallback !== 'date') {
      throw new TimeSyncError('missingStamp', `${source.name} answered without a TimeSync-Time header (a server that does not send it, a stored response replayed, or a header a script may not read); serve TimeSync-Time and list it in Access-Control-Expose-Headers, or give the source fallback: 'date' to accept its one-second Date header`);
    }
    let serverTime;
    let unit;
    if (source.kind === 'timestamp') {
      // Leading zeros do not count against the 20 digits (more could not be a time anyway).
      const digits = /^\s*0*(\d{1,20})\s*$/.exec(headers.get(source.header) ?? '')?.[1];
      if (digits === undefined) {
        throw new TimeSyncError('noTime', `${source.name} sent no readable ${source.header} header; expose it with Access-Control-Expose-Headers`);
      }
      unit = UNIT_NS[source.unit];
      serverTime = BigInt(digits) * unit;
    } else {
      const date = headers.get('Date');
      if (date === null) {
        throw new TimeSyncError('noTime', `${source.name} sent neither TimeSync-Time nor a Date a script may read; add them to Access-Control-Expose-Headers`);
      }
      unit = 1_000_000_000n;
      serverTime = BigInt(parseHTTPDate(date, this.#clock.wall() / 1000)) * unit;
    }
    const lower = serverTime - t4ns - resolution;
    const upper = serverTime + unit - t1ns + resolution;
    return { ...this.#checked(source, lower, upper, t4ns, span, span), resolution: unit };
  }

  #checked(source, lower, upper, time, span, delay) {
    try {
      return makeSample({ source: source.name, lower, upper, time, span, delay: delay < 0n ? 0n : minB(delay, span) });
    } catch (error) {
      throw new TimeSyncError('sample', `${source.name}'s answer is not a usable time: ${error.message}`, { cause: error });
    }
  }

  /** Puts a round's samples into the estimator as one measurement and publishes the outcome. */
  #take(samples) {
    if (samples.length === 0) return;
    const outcome = this.#estimator.addMeasurement(samples);
    for (const sample of samples) {
      this.#emit('sample', { source: sample.source, lower: sample.offset.lower, upper: sample.offset.upper, time: sample.time, delay: sample.delay });
    }
    if (outcome.calibration) {
      this.#calibration = outcome.calibration;
      this.#pause = null;
    }
    const previous = this.#status;
    this.#status = this.#statusFor(outcome);
    if (outcome.kind === 'calibrated') this.#emit('calibrated', { reading: this.reading() });
    if (previous !== this.#status) this.#emit('statuschange', { status: this.#status, previous });
  }

  #statusFor(outcome) {
    if (!this.#calibration) return 'unsynchronized';
    if (outcome.kind === 'noMajority') return 'noMajority';
    if (outcome.kind === 'contradicted') return 'provisional';
    if (outcome.kind === 'calibrated') {
      return outcome.calibration.sources.length >= this.#options.minimumAgreeingSources ? 'synchronized' : 'provisional';
    }
    return this.#status;
  }

  #fail(source, error) {
    this.#emit('error', { source: source.name, error, code: error.code, message: error.message });
  }

  // — the monotonic clock against the wall clock —

  /**
   * Compares elapsed monotonic and wall time since the last check. Less wall than monotonic time:
   * the device clock was set back (`clockjump`, and a resync). More: either the device clock was
   * set ahead, or the monotonic clock stopped meanwhile (some platforms stop it while the device
   * sleeps) and server time is later than the calibration says by up to that difference. The two
   * look the same, so the honest answer covers both: `latest` widens by the difference, the clock
   * stops vouching for anything but `earliest` (`suspended`), and a resync starts at once. A long
   * silence with no difference (a frozen page, timers held) is `resumed`, and resynced too.
   */
  #check() {
    if (!this.#watch) return;
    const mono = this.#clock.monotonic();
    const wall = this.#clock.wall();
    const elapsed = mono - this.#watch.mono;
    const drift = wall - this.#watch.wall - elapsed;
    this.#watch = { mono, wall };
    if (Math.abs(drift) <= this.#options.jumpTolerance) {
      if (elapsed > 3 * this.#options.watchInterval) { this.#emit('resumed', { gap: elapsed }); this.#resync('resumed'); }
      return;
    }
    if (drift < 0 || !this.#calibration) {
      this.#emit('clockjump', { by: drift });
      this.#resync('clockjump');
      return;
    }
    this.#pause = { allowance: (this.#pause?.allowance ?? 0n) + msToNs(drift) };
    // The samples taken before may be off by the pause: the next ones start afresh.
    this.#estimator.reset();
    this.#resets += 1;
    const previous = this.#status;
    this.#status = 'suspended';
    this.#emit('suspended', { gap: elapsed, drift });
    if (previous !== this.#status) this.#emit('statuschange', { status: this.#status, previous });
    this.#resync('suspended', true);
  }

  #scheduleWatch() {
    if (!this.#running) return;
    this.#after(this.#options.watchInterval, () => { this.#check(); this.#scheduleWatch(); });
  }

  #schedulePoll() {
    if (!this.#running) return;
    if (this.#pollTimer !== null) this.#cancel(this.#pollTimer);
    const interval = this.#status === 'synchronized' ? this.#options.pollInterval : Math.min(this.#options.pollInterval, 60_000);
    this.#pollTimer = this.#after(interval, () => { this.#pollTimer = null; this.sync('poll').catch(() => {}); });
  }

  /**
   * An event-driven resync, no closer than `minResyncInterval` to the last (unless it must). While a
   * sync is under way it follows that one: its requests may have left before what calls for this
   * (a frozen page, a pause, a jump), and joining it would measure nothing afresh. The first reason
   * asked for names the follow-up; however many are asked for, one follows.
   */
  #resync(reason, force = false) {
    if (!this.#running) return;
    if (!force && this.#clock.monotonic() - this.#lastSync < this.#options.minResyncInterval) return;
    if (this.#syncing) { this.#followUp ??= reason; return; }
    this.sync(reason).catch(() => {});
  }

  // — small tools —

  #spend(now) {
    const { requests, per } = this.#options.budget;
    while (this.#requests.length > 0 && now - this.#requests[0] >= per) this.#requests.shift();
    if (this.#requests.length >= requests) return false;
    this.#requests.push(now);
    return true;
  }

  #nonce() {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    let nonce = '';
    for (let i = 0; i < 16; i++) nonce += alphabet[Math.floor(this.#random() * alphabet.length) % alphabet.length];
    return nonce;
  }

  #after(ms, fn) {
    const id = this.#setTimeout(() => { this.#timers.delete(id); fn(); }, Math.max(0, ms));
    this.#timers.add(id);
    return id;
  }

  #cancel(id) {
    this.#timers.delete(id);
    this.#clearTimeout(id);
  }

  /** Waits `ms`; `stop()` ends every wait at once. */
  #sleep(ms) {
    return new Promise((resolve) => {
      const done = () => { this.#sleepers.delete(done); this.#clearTimeout(id); resolve(); };
      const id = this.#setTimeout(done, Math.max(0, ms));
      this.#sleepers.add(done);
    });
  }

  #emit(type, detail) {
    const event = new Event(type);
    event.detail = detail;
    this.dispatchEvent(event);
  }
}

/**
 * An instant given to the API, in ms since 1970: a number (±Infinity allowed) or a valid Date.
 * Anything else is a TypeError that names the argument.
 */
function instantArgument(name, value) {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || Number.isNaN(ms)) {
    const shown = typeof value === 'number' || value instanceof Date ? String(value) : typeof value;
    throw new TypeError(`${name} ${shown}: give ms since 1970 (a number) or a valid Date`);
  }
  return ms;
}

/** Whether the instant `ns` (BigInt) is at or after `ms` (a Number; -Infinity always, Infinity never). */
function reached(ns, ms) {
  if (ms === -Infinity) return true;
  if (ms === Infinity) return false;
  return ns >= msToNs(ms);
}

/** Whether a status vouches that server time is at least `earliest`. */
function vouchesForEarliest(status) { return status === 'synchronized' || status === 'suspended'; }

/** Whole seconds as `1d 02:03:04` or `02:03:04`. */
export function formatSeconds(total) {
  const s = Math.max(0, Math.floor(total));
  const two = (n) => String(n).padStart(2, '0');
  const clock = `${two(Math.floor(s / 3600) % 24)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
  return s >= 86_400 ? `${Math.floor(s / 86_400)}d ${clock}` : clock;
}
