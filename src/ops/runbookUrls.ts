/**
 * Absolute `runbook_url` annotations. grafana/alerts.yml keeps each link relative to the
 * repository (`docs/runbook.md#<alert>`), which is where the runbook lives in every copy of it;
 * where that copy is served (a fork on a code host, an internal docs site) differs per operator,
 * so the base is a setting, `RUNBOOK_BASE_URL`, put in front of the relative link when the rules
 * are rendered for a Prometheus: by `npm run k8s:rules` for the PrometheusRule and by the
 * docker-compose Prometheus at its start.
 *
 * The default base is under `.invalid` (RFC 6761: never resolves), so an unset base shows as
 * such in every notification instead of passing for a real address.
 */
export const RUNBOOK_BASE_URL_ENV = "RUNBOOK_BASE_URL";
export const DEFAULT_RUNBOOK_BASE_URL = "https://set-runbook-base-url.invalid/liquidator";
/** What every relative `runbook_url` of the source starts with. */
const RUNBOOK_PATH = "docs/runbook.md#";

/** The base without a trailing slash; an absolute http(s) URL with no query or fragment, else an Error naming the setting. */
export function runbookBaseUrl(value: string | undefined): string {
  const raw = (value ?? "").trim() === "" ? DEFAULT_RUNBOOK_BASE_URL : (value ?? "").trim();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${RUNBOOK_BASE_URL_ENV}=${raw} is not an absolute URL (e.g. https://github.com/<owner>/<repo>/blob/main)`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`${RUNBOOK_BASE_URL_ENV}=${raw} must be http(s)`);
  if (url.search !== "" || url.hash !== "") throw new Error(`${RUNBOOK_BASE_URL_ENV}=${raw} must have no query or fragment`);
  return raw.replace(/\/+$/, "");
}

/** `base/docs/runbook.md#anchor` for a relative link of the source; an absolute link is an error (the source keeps them relative). */
function absoluteRunbookUrl(relative: string, base: string): string {
  if (!relative.startsWith(RUNBOOK_PATH)) throw new Error(`runbook_url ${relative} does not start with ${RUNBOOK_PATH}`);
  return `${base}/${relative}`;
}

/** Copies of the rules with every `runbook_url` annotation made absolute; other fields untouched. */
export function withAbsoluteRunbookUrls<R extends Record<string, unknown>>(rules: readonly R[], base: string): R[] {
  return rules.map((rule) => {
    const annotations = rule.annotations as Record<string, string> | undefined;
    if (annotations?.runbook_url === undefined) return rule;
    return { ...rule, annotations: { ...annotations, runbook_url: absoluteRunbookUrl(annotations.runbook_url, base) } };
  });
}
