// Types for timesync.js: server time in a web page, with an honest error bound.

/** `synchronized`: vouched for. `provisional`: calibrated by fewer sources than required, or a
 * source contradicts its own history. `noMajority`: sources disagree. `suspended`: the device clock
 * ran ahead of the monotonic clock (set ahead, or a sleep that stopped it): only `earliest` is
 * vouched for until a resync. `unsynchronized`: no calibration; readings are the device's clock. */
export type Status = 'synchronized' | 'provisional' | 'noMajority' | 'suspended' | 'unsynchronized';

export type Position = 'before' | 'within' | 'after' | 'uncertain';

/** A time source: a URL and the header that carries the time. */
export interface SourceSpec {
  url: string;
  /** `timesync` (the TimeSync-Time header, nonce-checked; default), `timestamp` (a Unix time header,
   * such as `Response-Timestamp`) or `date` (the one-second `Date` header, refined below a second). */
  kind?: 'timesync' | 'timestamp' | 'date';
  /** For `timesync`: what a response without TimeSync-Time gives. `none` (default): nothing, an
   * error `missingStamp`. `date`: its `Date` header, as a `date` source would read it, until the
   * source first answers with TimeSync-Time; after that, a response without it is an error
   * `downgrade`. Only for a server known not to send TimeSync-Time: the `Date` header carries no
   * nonce, so a stored response replayed is read as the time it was stored. Not allowed on other kinds. */
  fallback?: 'none' | 'date';
  /** For `timestamp`: the header's name (a header field name, such as `Response-Timestamp`). */
  header?: string;
  /** For `timestamp`: its unit (default `ms`). */
  unit?: 's' | 'ms' | 'us' | 'ns';
  /** The name in readings and events (default: the URL). */
  name?: string;
}

/** The estimator's settings (the Swift package's `EstimatorConfiguration`). */
export interface EstimatorOptions {
  /** The local clock's largest rate error (default 100e-6). */
  maxDrift?: number;
  /** How far the measured rate may wander (default 2e-6). */
  rateWander?: number;
  /** Samples kept per source (default 64). */
  windowSize?: number;
  /** A source silent this long (ns) behind the newest is dropped (default one hour). */
  sourceTimeout?: bigint;
  /** How fast a server's clock may be slewed (default 500e-6). */
  serverSlew?: number;
  /** The most a slew adds to a bound, ns (default 128 ms). */
  serverSlewLimit?: bigint;
}

export interface TimeSyncClientOptions {
  sources: Array<string | SourceSpec>;
  /** ms between polls once synchronized (default 15 min). */
  pollInterval?: number;
  /** Requests per source when a sync starts from nothing (default 4). */
  burst?: number;
  /** ms between those requests (default 200). */
  burstSpacing?: number;
  /** Timed requests that refine a `Date` source per sync (default 8). */
  dateRequests?: number;
  /** ms: each request's deadline (default 5000). */
  timeout?: number;
  /** ms: the monotonic clock's coarsening, added to every bound (default 0.1). */
  resolution?: number;
  /** Sources that must agree for `synchronized` (default 1). */
  minimumAgreeingSources?: number;
  /** At most `requests` requests per `per` ms (default 120 per hour). */
  budget?: { requests?: number; per?: number };
  /** ms: event-driven resyncs no closer than this (default 2000). */
  minResyncInterval?: number;
  /** ms between checks of the monotonic clock against the wall clock (default 1000). */
  watchInterval?: number;
  /** ms: a larger difference between elapsed wall and monotonic time is a jump (default 500). */
  jumpTolerance?: number;
  estimator?: EstimatorOptions;
  /** For tests: the clocks, in ms (`monotonic` counts from page load). */
  clock?: { monotonic(): number; wall(): number };
  fetch?: typeof fetch;
  /** For tests: the page's Resource Timing entries for a URL (default: performance.getEntriesByName). */
  resourceTiming?: (url: string) => ArrayLike<{ startTime: number; requestStart: number; responseStart: number }>;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (id: unknown) => void;
  random?: () => number;
  events?: { document?: EventTarget & { visibilityState?: string }; window?: EventTarget };
}

/** Server time now, in ms since 1970 (and exactly, in ns). */
export interface Reading {
  time: number;
  /** ±Infinity when unbounded. */
  earliest: number;
  latest: number;
  /** Half the bounds' width, ms. */
  error: number;
  status: Status;
  /** ms since the calibration's newest sample. */
  age: number;
  sources: string[];
  timeNs: bigint;
  earliestNs: bigint | null;
  latestNs: bigint | null;
}

export interface CountdownTick {
  /** ms to the target by the best estimate (0 once reached). */
  remaining: number;
  /** Whole seconds shown (rounded up; 0 when finished). */
  seconds: number;
  /** `02:03:04`, or `1d 02:03:04`. */
  formatted: string;
  /** The target has certainly passed (or, unsynchronized, passed by the device's clock). */
  finished: boolean;
  /** The target has passed by the vouched earliest bound. */
  certain: boolean;
  /** ms: the reading's half-width. */
  error: number;
  status: Status;
  reading: Reading;
}

/** A failed measurement. `missingStamp`: a `timesync` source answered without TimeSync-Time (see
 * `SourceSpec.fallback`). `downgrade`: it did after answering with TimeSync-Time before. `noTime`: a
 * `timestamp` or `date` source sent no readable time. */
export class TimeSyncError extends Error {
  code: 'network' | 'timeout' | 'rateLimited' | 'budget' | 'cached' | 'nonce' | 'missingStamp' | 'downgrade' | 'noTime' | 'sample';
}

export class HeaderError extends Error {
  code: 'malformed' | 'missingMember' | 'badMember' | 'version' | 'reversed' | 'weekday';
}

export interface TimeSyncEventMap {
  sync: Event & { detail: { reason: string; samples: number; status: Status } };
  /** One per sample, when its source's sync round ends and the round goes into the estimator. */
  sample: Event & { detail: { source: string; lower: bigint; upper: bigint; time: bigint; delay: bigint } };
  calibrated: Event & { detail: { reading: Reading } };
  statuschange: Event & { detail: { status: Status; previous: Status } };
  error: Event & { detail: { source: string; error: Error; code: string; message: string } };
  clockjump: Event & { detail: { by: number } };
  suspended: Event & { detail: { gap: number; drift: number } };
  resumed: Event & { detail: { gap: number } };
}

export class TimeSyncClient extends EventTarget {
  constructor(options: TimeSyncClientOptions);
  static readonly defaults: Required<Omit<TimeSyncClientOptions, 'sources' | 'estimator' | 'clock' | 'fetch' | 'resourceTiming' | 'setTimeout' | 'clearTimeout' | 'random' | 'events'>>;
  readonly sources: SourceSpec[];
  readonly status: Status;
  start(): this;
  stop(): void;
  /** Server time now in ms since 1970, like Date.now(). */
  now(): number;
  reading(): Reading;
  /** Where now lies relative to [start, end), in ms since 1970 or Dates. `end` Infinity: open-ended;
   * `start` -Infinity: open at the start. A NaN, an invalid Date or anything but a number or a Date
   * throws a TypeError that names the argument. */
  position(start: number | Date, end: number | Date): Position;
  /** Whether server time has certainly reached `instant` (-Infinity: always; Infinity: never). A NaN,
   * an invalid Date or anything but a number or a Date throws a TypeError. */
  hasCertainlyPassed(instant: number | Date): boolean;
  /** Counts down to a finite `target`. Ticks at each whole second of the remaining time, at most
   * every `interval` ms (1 to 86 400 000; default 1000), and at once after a calibration, a status
   * change, a suspension or a resumption; never more often. A target that is not a finite time, an
   * interval out of range or an `onTick` that is not a function throws a TypeError naming it. */
  countdown(target: number | Date, onTick: (tick: CountdownTick) => void, options?: { interval?: number }): { stop(): void };
  /** Measures now: each source's requests make one round, taken into the estimator as one
   * measurement; resolves to the number of samples taken. */
  sync(reason?: string): Promise<number>;
  addEventListener<K extends keyof TimeSyncEventMap>(type: K, listener: (event: TimeSyncEventMap[K]) => void, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void;
}

/** Parses an RFC 9651 dictionary into member → {type, value} (integers as BigInts); throws a HeaderError. */
export function parseDictionary(text: string): Map<string, { type: string; value: unknown }>;
/** Parses a `TimeSync-Time` value; throws a HeaderError (however deeply nested or long the input). */
export function parseTimeSyncHeader(text: string): { t2: bigint; t3: bigint; uncertainty: bigint; nonce?: string };
/** An HTTP date as whole seconds since 1970; throws a HeaderError. */
export function parseHTTPDate(text: string, referenceSeconds?: number): number;
/** `Retry-After` as a wait in ms, or null: delay-seconds (leading zeros allowed) or an HTTP date; a
 * wait over a day, however many digits, reads as a day (86 400 000). */
export function parseRetryAfter(text: string | null, nowSeconds: number): number | null;
export function formatSeconds(total: number): string;
export function msToNs(ms: number): bigint;
export function nsToMs(ns: bigint): number;

/** Why a sample was refused. */
export class SampleError extends Error {
  code: 'sourceName' | 'monotonicOutOfRange' | 'replyBeforeRequest' | 'spanTooLong' | 'negativeDelay' | 'emptyInterval' | 'intervalTooWide' | 'timeOutOfRange';
}
/** A checked sample for the estimator: θ in [lower, upper] ns at monotonic `time` ns; throws a SampleError. */
export function makeSample(sample: { source: string; lower: bigint; upper: bigint; time: bigint; span: bigint; delay: bigint }): unknown;
/** What the estimator says after a sample or a measurement. */
export interface EstimatorOutcome { kind: 'calibrated' | 'contradicted' | 'noMajority' | 'noSamples'; calibration?: unknown }
/** The estimator, as the Swift package's IntersectionEstimator (used by the client; exported for tools).
 * A sample that contradicts its source's window is held until a sample of another measurement
 * agrees with it (the source stepped) or one that agrees with the window refutes it. */
export class IntersectionEstimator {
  constructor(options?: EstimatorOptions);
  readonly sources: string[];
  /** Takes one sample (from `makeSample`) as a measurement of its own; a TypeError for anything else. */
  add(sample: unknown): EstimatorOutcome;
  /** Takes the samples of one measurement (one sync round of one source) in order, under one
   * measurement number, and votes once (Swift: `add(contentsOf:)`): its samples cannot confirm a
   * step on their own. `null` for an empty array; a TypeError, changing nothing, for anything but
   * an array of samples. */
  addMeasurement(samples: readonly unknown[]): EstimatorOutcome | null;
  removeSource(source: string): unknown;
  reset(): void;
}
/** Replays a stream written by `timesync simulate --write-streams`: one outcome row per sample. */
export function replayStream(stream: unknown): string[][];
