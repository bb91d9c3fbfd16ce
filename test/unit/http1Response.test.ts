/** The claim connection's HTTP/1.1 answer parser (venue/http1Response.ts). */
import { describe, expect, test } from "vitest";
import { Http1ResponseParser, ResponseFormatErrorForTests } from "../../src/venue/http1Response.js";

function parse(chunks: string[], maxBody = 1_000) {
  const got = { status: 0, headers: {} as Record<string, string>, body: "", ended: false, keepAlive: undefined as boolean | undefined };
  const p = new Http1ResponseParser(
    {
      head: (status, headers) => {
        got.status = status;
        got.headers = headers;
      },
      data: (c) => {
        got.body += c.toString("utf8");
      },
      end: (keepAlive) => {
        got.ended = true;
        got.keepAlive = keepAlive;
      },
    },
    maxBody,
  );
  for (const c of chunks) p.push(Buffer.from(c));
  return { got, p };
}

describe("Http1ResponseParser", () => {
  test("content-length body split anywhere, headers lower-cased, keep-alive by default", () => {
    const text = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nKeep-Alive: timeout=5\r\nContent-Length: 11\r\n\r\n{"ok":true}';
    for (let cut = 1; cut < text.length; cut += 7) {
      const { got } = parse([text.slice(0, cut), text.slice(cut)]);
      expect(got).toEqual({
        status: 200,
        headers: { "content-type": "application/json", "keep-alive": "timeout=5", "content-length": "11" },
        body: '{"ok":true}',
        ended: true,
        keepAlive: true,
      });
    }
  });

  test("chunked body with extensions and trailers; 100 Continue skipped; connection: close ends keep-alive", () => {
    const { got } = parse([
      "HTTP/1.1 100 Continue\r\n\r\n",
      "HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
      '4;x=y\r\n{"a"\r\n',
      "3\r\n:1}\r\n0\r\nX-Trailer: 1\r\n\r\n",
    ]);
    expect(got.status).toBe(400);
    expect(got.body).toBe('{"a":1}');
    expect(got.ended).toBe(true);
    expect(got.keepAlive).toBe(false);
  });

  test("a body without length ends at the close; HTTP/1.0 is not kept alive without keep-alive", () => {
    const { got, p } = parse(["HTTP/1.0 200 OK\r\n\r\nabc", "def"]);
    expect(got.ended).toBe(false);
    expect(p.endsAtClose).toBe(true);
    p.close();
    expect(got.body).toBe("abcdef");
    expect(got.keepAlive).toBe(false);
  });

  test("malformed or oversized answers are errors", () => {
    expect(() => parse(["HTTP/2 200\r\n\r\n"])).toThrow(ResponseFormatErrorForTests);
    expect(() => parse(["HTTP/1.1 200 OK\r\nbad header\r\n\r\n"])).toThrow(ResponseFormatErrorForTests);
    expect(() => parse(["HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"])).toThrow(ResponseFormatErrorForTests);
    expect(() => parse(["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabc"])).toThrow(/after the end/);
    expect(() => parse(["HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n"])).toThrow(/too large/);
    expect(() => parse(["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"])).toThrow(/chunk size/);
    const { p } = parse(["HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab"]);
    expect(() => p.close()).toThrow(/closed before/);
  });
});
