/**
 * How secrets are hidden wherever text is printed: the one placeholder, and the PostgreSQL connection
 * string made printable. A leaf (no imports) so that config/, observe/ and store/ share it.
 */

/** What a secret is replaced with in logs, check-config and error messages. */
export const REDACTED = "<redacted>";

/**
 * A PostgreSQL connection string as it may be printed (logs, check-config, error messages): the
 * password in the user-info part and every password-like parameter are replaced. Works on URL form
 * (`postgres://user:pw@host/db?...`), on libpq key=value form (`host=h password=pw`), and on text that
 * parses as neither: a typo in the URL must not leak the secret.
 */
/** Parameters that carry a secret (libpq names), in a URL query or a key=value string. */
const SECRET_PARAM_RE = /((?:^|[?&\s])(?:password|sslpassword)\s*=\s*)('(?:[^'\\]|\\.)*'|[^&\s]*)/gi;

/** `//user:password@` anywhere, for text whose scheme is mistyped. */
const USER_INFO_RE = /(\/\/[^:/?#@\s]*):\S*@/g;

export function redactPostgresUrl(url: string): string {
  const scheme = /^postgres(?:ql)?:\/\//i.exec(url);
  if (scheme === null) return url.replace(USER_INFO_RE, `$1:${REDACTED}@`).replace(SECRET_PARAM_RE, `$1${REDACTED}`);
  const afterScheme = url.slice(scheme[0].length);
  // The user-info ends at the last "@": an unencoded password may hold "@", ":", "/" or "?". Cutting
  // at the last one can only hide more than the password, never less.
  const at = afterScheme.lastIndexOf("@");
  let head = "";
  let tail = afterScheme;
  if (at >= 0) {
    const userInfo = afterScheme.slice(0, at);
    const colon = userInfo.indexOf(":");
    head = colon >= 0 ? `${userInfo.slice(0, colon)}:${REDACTED}@` : `${userInfo}@`;
    tail = afterScheme.slice(at + 1);
  }
  return `${scheme[0]}${head}${tail.replace(SECRET_PARAM_RE, `$1${REDACTED}`)}`;
}
