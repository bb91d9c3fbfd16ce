/**
 * The text of one HTTP/1.1 request as the claim connection writes it: request line, host, keep-alive,
 * the given headers, content-length and body. Pure, so the claim rehearsal (daemon/claim/claimRehearsal.ts)
 * runs the very function the send runs. Throws on a path or header that could split the request.
 */

const UNSAFE = /[\r\n\0]/;

export interface Http1RequestParts {
  method: string;
  path: string;
  /** A flat `[name, value, ...]` list or an object. */
  headers: string[] | Record<string, string>;
  body?: string | undefined;
}

export function http1RequestText(host: string, o: Http1RequestParts): string {
  if (UNSAFE.test(o.path) || o.path.includes(" ") || !o.path.startsWith("/")) throw new Error("bad request path");
  let head = `${o.method} ${o.path} HTTP/1.1\r\nhost: ${host}\r\nconnection: keep-alive\r\n`;
  const h = Array.isArray(o.headers) ? o.headers : Object.entries(o.headers).flat();
  for (let i = 0; i + 1 < h.length; i += 2) {
    const name = h[i] as string;
    const value = h[i + 1] as string;
    if (UNSAFE.test(name) || UNSAFE.test(value) || name.includes(":")) throw new Error("bad request header");
    head += `${name}: ${value}\r\n`;
  }
  if (o.body === undefined) return `${head}\r\n`;
  return `${head}content-length: ${Buffer.byteLength(o.body)}\r\n\r\n${o.body}`;
}
