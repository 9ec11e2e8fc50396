// Compiled (not run) by the tests with Debian's TypeScript compiler: timesync.d.ts describes the
// API the way the client is used in a page.
import { TimeSyncClient, TimeSyncError, IntersectionEstimator, parseTimeSyncHeader, type Reading, type Position, type CountdownTick } from '../timesync.js';

const client = new TimeSyncClient({
  sources: ['https://api.example/time', { url: 'https://example.org/', kind: 'date' }, { url: 'https://legacy.example/time', fallback: 'date' }],
  minimumAgreeingSources: 1,
});
client.start();
const reading: Reading = client.reading();
const ms: number = reading.time + reading.error;
const position: Position = client.position(Date.now(), new Date(Date.now() + 60_000));
const open: Position = client.position(Date.now(), Infinity);
const handle = client.countdown(Date.now() + 10_000, (tick: CountdownTick) => { const s: string = tick.formatted; void s; });
handle.stop();
client.addEventListener('statuschange', (event) => { const status: string = event.detail.status; void status; });
client.addEventListener('error', (event) => { const code: string = event.detail.code; void code; });
const refused: TimeSyncError['code'][] = ['missingStamp', 'downgrade'];
const outcome = new IntersectionEstimator().addMeasurement([]);
const kind: string | undefined = outcome?.kind;
const header = parseTimeSyncHeader('v=1, s=1, t2=0, t3=0');
const t2: bigint = header.t2;
const defaults = TimeSyncClient.defaults;
const poll: number = defaults.pollInterval + defaults.jumpTolerance;
void ms; void position; void open; void refused; void kind; void t2; void poll;
client.stop();
