// Refusals of Node's parser: their status and text, and whether the refused request was a HEAD
// (from the refused read, else from the method noted when an earlier read ended inside its head).

import { lastRequestMethod, refusalFor, refusedHead } from '../../../../src/engine/node-adapter/client-error';

test('each parser error has its status, the rest is a 400', () => {
  expect(refusalFor('HPE_HEADER_OVERFLOW')).toEqual({ status: 431, reason: 'Request Header Fields Too Large', message: 'request header fields too large' });
  expect(refusalFor('HPE_INVALID_VERSION').status).toBe(505);
  expect(refusalFor('HPE_SOMETHING_NEW')).toEqual({ status: 400, reason: 'Bad Request', message: 'malformed HTTP request' });
  expect(refusalFor(undefined).status).toBe(400);
});

test('the method of the last request line before the point of refusal', () => {
  const raw = Buffer.from('GET /a HTTP/1.1\r\nHost: x\r\n\r\nHEAD /b HTTP/1.1\r\nHost: x\r\nX: y\r\n');
  expect(lastRequestMethod(raw)).toBe('HEAD');
  expect(lastRequestMethod(raw, raw.indexOf('HEAD'))).toBe('GET');
  expect(lastRequestMethod(Buffer.from('aaaa: continuation of a head\r\n'))).toBeUndefined();
  expect(lastRequestMethod('not a buffer')).toBeUndefined();
});

test('a request line cut off by the end of the bytes seen (larger than the head limit) still names its method', () => {
  expect(lastRequestMethod(Buffer.from(`HEAD /v1/sys/health?pad=${'a'.repeat(70 * 1024)}`))).toBe('HEAD');
  expect(lastRequestMethod(Buffer.from('HEAD '))).toBe('HEAD');
  expect(lastRequestMethod(Buffer.from('GET /a HTTP/1.1\r\nHost: x\r\n\r\nHEAD /aaaa'))).toBe('HEAD');
  // A header line is never taken for one: its name ends with a colon.
  expect(lastRequestMethod(Buffer.from('GET /a HTTP/1.1\r\nX-Big: aaaa'))).toBe('GET');
});

test('a refused HEAD: seen in the refused read, or noted from an earlier read', () => {
  expect(refusedHead(Buffer.from('HEAD / HTTP/1.1\r\nX: '), undefined)).toBe(true);
  // The refused read holds only the rest of the head: the noted method decides.
  expect(refusedHead(Buffer.from('aaaaaaaa\r\n'), undefined, 'HEAD')).toBe(true);
  expect(refusedHead(Buffer.from('aaaaaaaa\r\n'), undefined, 'GET')).toBe(false);
  // A request line in the refused read wins over an older note.
  expect(refusedHead(Buffer.from('GET / HTTP/1.1\r\nX: '), undefined, 'HEAD')).toBe(false);
  expect(refusedHead(undefined, undefined)).toBe(false);
});
