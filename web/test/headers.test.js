// The wire formats: the TimeSync-Time dictionary, HTTP dates and Retry-After. Bad input is a
// HeaderError with a code, never another exception and never a value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeaderError, parseDictionary, parseHTTPDate, parseRetryAfter, parseTimeSyncHeader } from '../timesync.js';

test('the example of the wire format', () => {
  const header = parseTimeSyncHeader('v=1, s=1763701484, t2=123456789, t3=123987654, n="q8Zt1v0cYx3LmR2a"');
  assert.deepEqual(header, { t2: 1763701484123456789n, t3: 1763701484123987654n, uncertainty: 0n, nonce: 'q8Zt1v0cYx3LmR2a' });
});

test('unknown members and parameters are ignored; u widens; t3 may pass the second', () => {
  const header = parseTimeSyncHeader('v=1;x=2, s=10, future=(1 "a" ?1);q, t2=999999999, t3=1000000500, u=2500, flag');
  assert.equal(header.t2, 10_999_999_999n);
  assert.equal(header.t3, 11_000_000_500n);
  assert.equal(header.uncertainty, 2500n);
  assert.equal(header.nonce, undefined);
});

test('several field lines combined with ", " read as one dictionary', () => {
  assert.equal(parseTimeSyncHeader('v=1, s=5, t2=1, t3=2, n="abc"').nonce, 'abc');
  assert.equal(parseDictionary('a=1,\tb="x\\"y"').get('b').value, 'x"y');
});

test('what a client must refuse, each with its code', () => {
  const cases = [
    ['v=2, s=1, t2=0, t3=0', 'version'],
    ['s=1, t2=0, t3=0', 'missingMember'],
    ['v=1, s=1, t2=0', 'missingMember'],
    ['v=1, s="1", t2=0, t3=0', 'badMember'],
    ['v=1, s=1.5, t2=0, t3=0', 'badMember'],
    ['v=1, s=1, t2=0, t3=0, n=abc', 'badMember'],
    ['v=1, s=1, t2=0, t3=0, u=-1', 'badMember'],
    ['v=1, s=1, t2=0, t3=0, u=99999999999', 'badMember'],
    ['v=1, s=1, t2=5, t3=4', 'reversed'],
    ['v=1, s=1234567890123456, t2=0, t3=0', 'malformed'],
    ['v=1, s=1, t2=0, t3=0,', 'malformed'],
    ['V=1, s=1, t2=0, t3=0', 'malformed'],
    ['v=1 s=1', 'malformed'],
    ['v=1, n="unterminated', 'malformed'],
    ['v=1, n="tab\there"', 'malformed'],
    ['v=1, n="bad \\escape"', 'malformed'],
  ];
  for (const [text, code] of cases) {
    assert.throws(() => parseTimeSyncHeader(text), (error) => error instanceof HeaderError && error.code === code && error.message.length > 10, text);
  }
});

test('HTTP dates in all three forms, and what is not one', () => {
  const expected = Date.UTC(1994, 10, 6, 8, 49, 37) / 1000;
  assert.equal(parseHTTPDate('Sun, 06 Nov 1994 08:49:37 GMT'), expected);
  assert.equal(parseHTTPDate('Sunday, 06-Nov-94 08:49:37 GMT', Date.UTC(2026, 0, 1) / 1000), expected);
  assert.equal(parseHTTPDate('Sun Nov  6 08:49:37 1994'), expected);
  assert.equal(parseHTTPDate('Tuesday, 01-Jan-80 00:00:00 GMT', Date.UTC(2026, 0, 1) / 1000), Date.UTC(1980, 0, 1) / 1000,
    'a two-digit year more than 50 years ahead is the past century');
  assert.equal(parseHTTPDate('Wednesday, 01-Jan-70 00:00:00 GMT', Date.UTC(2026, 0, 1) / 1000), Date.UTC(2070, 0, 1) / 1000, 'less: this century');
  const bad = [
    ['Mon, 06 Nov 1994 08:49:37 GMT', 'weekday'],
    ['Sun, 31 Feb 1994 08:49:37 GMT', 'malformed'],
    ['Sun, 06 Nov 1994 24:00:00 GMT', 'malformed'],
    ['Sun, 06 Foo 1994 08:49:37 GMT', 'malformed'],
    ['Sun, 06 Nov 1994 08:49:37 UTC', 'malformed'],
    ['1994-11-06T08:49:37Z', 'malformed'],
    ['', 'malformed'],
  ];
  for (const [text, code] of bad) {
    assert.throws(() => parseHTTPDate(text), (error) => error instanceof HeaderError && error.code === code, text);
  }
});

test('Retry-After: seconds or a date, capped at a day, null when unreadable', () => {
  const now = Date.UTC(2026, 10, 26, 12, 0, 0) / 1000;
  assert.equal(parseRetryAfter('120', now), 120_000);
  assert.equal(parseRetryAfter(' 0 ', now), 0);
  assert.equal(parseRetryAfter('99999999999999999999', now), 86_400_000);
  assert.equal(parseRetryAfter('Thu, 26 Nov 2026 12:01:30 GMT', now), 90_000);
  assert.equal(parseRetryAfter('Thu, 26 Nov 2026 11:00:00 GMT', now), 0, 'a date in the past: no wait');
  assert.equal(parseRetryAfter('-5', now), null);
  assert.equal(parseRetryAfter('soon', now), null);
  assert.equal(parseRetryAfter(null, now), null);
});

test('seeded random input: a HeaderError or a result, never another exception', () => {
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const alphabet = 'v=1, s=t2t3nu"\\;()?:@*-.0123456789abcxyz\t ';
  for (let i = 0; i < 20_000; i++) {
    const length = next() % 48;
    let text = '';
    for (let j = 0; j < length; j++) text += alphabet[next() % alphabet.length];
    for (const parse of [parseTimeSyncHeader, parseHTTPDate]) {
      try {
        parse(text);
      } catch (error) {
        assert.ok(error instanceof HeaderError, `${JSON.stringify(text)}: ${error}`);
      }
    }
  }
});

test('a date of 12,000 nested @ is a HeaderError, not a stack overflow', () => {
  for (const text of [`v=1, s=1, t2=0, t3=0, d=${'@'.repeat(12_000)}1`, `v=1, s=1, t2=0, t3=0, d=(${'@'.repeat(12_000)}1)`, 'v=1;d=@@1, s=1, t2=0, t3=0']) {
    assert.throws(() => parseTimeSyncHeader(text), (error) => error instanceof HeaderError && error.code === 'malformed', text.slice(0, 40));
  }
  assert.equal(parseDictionary('d=@1700000000').get('d').value, 1700000000n, 'one @ is a date');
});

test('Retry-After: leading zeros are part of the seconds; any number of digits saturates at a day', () => {
  const now = Date.UTC(2026, 10, 26, 12, 0, 0) / 1000;
  assert.equal(parseRetryAfter('0000000000003600', now), 3_600_000);
  assert.equal(parseRetryAfter('0120', now), 120_000);
  assert.equal(parseRetryAfter('000', now), 0);
  assert.equal(parseRetryAfter(`${'0'.repeat(1_000)}5`, now), 5_000);
  assert.equal(parseRetryAfter('86401', now), 86_400_000);
  assert.equal(parseRetryAfter('100000', now), 86_400_000);
  assert.equal(parseRetryAfter('9'.repeat(1_000), now), 86_400_000);
});

test('HTTP dates: fields of the wrong width (leading zeros, long years) are refused, not misread', () => {
  for (const text of ['Sun, 006 Nov 1994 08:49:37 GMT', 'Sun, 06 Nov 01994 08:49:37 GMT', 'Sun, 06 Nov 1994 008:49:37 GMT', 'Sun, 6 Nov 1994 08:49:37 GMT',
    'Sunday, 06-Nov-094 08:49:37 GMT', 'Sun Nov 006 08:49:37 1994', `Sun, 06 Nov ${'0'.repeat(1_000)}1994 08:49:37 GMT`]) {
    assert.throws(() => parseHTTPDate(text), (error) => error instanceof HeaderError && error.code === 'malformed', text.slice(0, 40));
  }
});
