#!/usr/bin/env node
// Runs the client's estimator over sample streams written by `timesync simulate --write-streams`
// and prints its outcome after each sample, in the streams' own row format:
//   kind, anchor, lower, upper, estimate (ns), rate lower, rate upper, rate estimate.
// Reads one stream (an object) or several (an array) on standard input; `timesync simulate
// --javascript web/tools/estimate-streams.mjs` scores it beside the Swift strategies.
import { readFileSync } from 'node:fs';
import { replayStream } from '../timesync.js';

const input = JSON.parse(readFileSync(process.argv[2] ?? 0, 'utf8'));
const rows = Array.isArray(input) ? input.map((stream) => replayStream(stream)) : replayStream(input);
process.stdout.write(JSON.stringify(rows));
