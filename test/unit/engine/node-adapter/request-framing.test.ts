// RequestFraming: the method token is rewritten at every request start and nowhere else, however
// the bytes are split, across Content-Length and chunked bodies and pipelined requests.

import { RequestFraming } from '../../../../src/engine/node-adapter/request-framing';

/** Feeds the text in pieces of the given size and returns what the parser would see. */
function run(text: string, piece: number): { out: string; methods: string[] } {
  const f = new RequestFraming();
  const buf = Buffer.from(text, 'latin1');
  const parts: Buffer[] = [];
  for (let i = 0; i < buf.length; i += piece) parts.push(f.feed(buf.subarray(i, i + piece)));
  return { out: Buffer.concat(parts).toString('latin1'), methods: f.methods };
}

const list = 'LIST /v1/sys/policies/acl HTTP/1.1\r\nHost: x\r\n\r\n';
const post = (body: string) => `POST /v1/auth/x/login HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
const chunked = 'PUT /v1/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nLIST \r\n3\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n';

describe('RequestFraming', () => {
  it.each([1, 2, 3, 7, 1000])('rewrites LIST heads only, with the input split every %i bytes', (piece) => {
    const body = 'LIST /not/a/request HTTP/1.1\r\n\r\n';
    const text = list + post(body) + chunked + '\r\n' + list;
    const { out, methods } = run(text, piece);
    expect(methods).toEqual(['LIST', 'POST', 'PUT', 'LIST']);
    expect(out).toBe(
      text
        .replace(/^LIST /, 'LINK ')
        .replace(/\r\n\r\nLIST \/v1/g, '\r\n\r\nLINK /v1')
        .replace('\r\n\r\nLIST /v1', '\r\n\r\nLINK /v1'),
    );
    // Bodies and chunk data that look like a LIST head are left alone.
    expect(out).toContain('LIST /not/a/request');
    expect(out).toContain('LIST \r\n3');
  });

  it.each([1, 5, 1000])('reads framing headers in any letter case and no header that merely starts like one (split every %i bytes)', (piece) => {
    const text = 'POST /a HTTP/1.1\r\nContent-Length-Hint: 99\r\nCONTENT-length: 5\r\n\r\nLIST LIST /b HTTP/1.1\r\n\r\n';
    const { out, methods } = run(text, piece);
    expect(methods).toEqual(['POST', 'LIST']);
    expect(out).toBe(text.replace('LIST /b', 'LINK /b'));
  });

  it('returns the same buffer when nothing changes', () => {
    const f = new RequestFraming();
    const b = Buffer.from(post('{}'));
    expect(f.feed(b)).toBe(b);
  });

  it('passes bytes through unchanged once the framing is not understood', () => {
    const bad = 'POST /x HTTP/1.1\r\nContent-Length: nope\r\n\r\nLIST /y HTTP/1.1\r\n\r\n';
    const { out, methods } = run(bad, 4);
    expect(out).toBe(bad);
    expect(methods).toEqual(['POST']);
  });

  it('stops tracking after an overlong method token without losing bytes', () => {
    const junk = 'X'.repeat(100) + ' / HTTP/1.1\r\n\r\n';
    expect(run(junk, 10).out).toBe(junk);
  });
});
