/**
 * The order's Temporal history on the order page, for ops and admins: each event's id, time, type and a short
 * summary of what it carries (names, failures, decoded payloads). The payloads come from the API's history route,
 * already decoded with secrets redacted; this view only shortens them.
 */
import { breakable, html, type Html } from '../html.js';
import { dataTable } from '../tables.js';

/** At most this many events are listed (the newest are kept); the API route has them all. */
export const MAX_LISTED_EVENTS = 500;
const SUMMARY_LENGTH = 240;

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A proto3 JSON scalar as text (enums and 64-bit numbers come as strings), or `fallback` for anything else. */
function scalarText(value: unknown, fallback: string): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : fallback;
}

/** `EVENT_TYPE_WORKFLOW_EXECUTION_STARTED` → `WORKFLOW_EXECUTION_STARTED`. */
export function eventTypeName(event: unknown): string {
  const type = isRecord(event) ? event['eventType'] : undefined;
  return typeof type === 'string' ? type.replace(/^EVENT_TYPE_/, '') : scalarText(type, 'UNKNOWN');
}

/** proto3 JSON gives an RFC 3339 string; protobufjs' toObject a `{ seconds, nanos }`. */
export function eventTimeIso(event: unknown): string | undefined {
  const time = isRecord(event) ? event['eventTime'] : undefined;
  if (typeof time === 'string') return time;
  if (isRecord(time) && time['seconds'] !== undefined) {
    const ms = Number(time['seconds']) * 1000 + Math.floor(Number(time['nanos'] ?? 0) / 1e6);
    return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
  }
  return undefined;
}

function attributesOf(event: unknown): Json | undefined {
  if (!isRecord(event)) return undefined;
  const key = Object.keys(event).find((name) => name.endsWith('EventAttributes') && isRecord(event[name]));
  return key ? (event[key] as Json) : undefined;
}

function at(value: unknown, path: string[]): unknown {
  let current = value;
  for (const key of path) current = isRecord(current) ? current[key] : undefined;
  return current;
}

/**
 * A decoded payload without its vendor configuration: the API has redacted its secrets already, but the console
 * never shows any of it (as the order's own facts do not); the API's history route has it, redacted.
 */
function withoutVendorConfig(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutVendorConfig);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'vendorConfig')
      .map(([key, item]) => [key, withoutVendorConfig(item)]),
  );
}

/** The payloads of an event as the API gave them: `{ decoded }`, `{ undecodable }` or the withheld marker. */
function payloadsIn(value: unknown, found: unknown[] = []): unknown[] {
  if (Array.isArray(value)) {
    for (const item of value) payloadsIn(item, found);
  } else if (isRecord(value)) {
    if ('decoded' in value && Object.keys(value).length === 1) found.push(withoutVendorConfig(value['decoded']));
    else if (typeof value['undecodable'] === 'string' && Object.keys(value).length === 1)
      found.push(`[undecodable: ${value['undecodable']}]`);
    else for (const item of Object.values(value)) payloadsIn(item, found);
  } else if (typeof value === 'string' && value.startsWith('[payload withheld')) {
    found.push(value);
  }
  return found;
}

/** To the second (history events come in bursts), UTC (the column says so), inside a machine-readable <time>. */
function eventWhen(iso: string | undefined): Html {
  if (!iso) return html`—`;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return html`${iso}`;
  return html`<time datetime="${date.toISOString()}">${date.toISOString().slice(0, 19).replace('T', ' ')}</time>`;
}

/** An event's summary: one line, and the payloads in full under it when the line had to cut them. */
function summaryCell(event: unknown): Html | string {
  const summary = eventSummary(event);
  if (summary.payloads)
    return html`<details><summary><code class="wrap">${summary.line}</code></summary><pre class="wrap" data-testid="history-payloads">${summary.payloads}</pre></details>`;
  return summary.line ? html`<code class="wrap">${summary.line}</code>` : '';
}

function shorten(text: string, length = SUMMARY_LENGTH): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

/** What an event carries: one line (names, failure, payloads shortened) and, when that had to be cut, the payloads in full. */
export function eventSummary(event: unknown): { line: string; payloads?: string } {
  const attributes = attributesOf(event);
  if (!attributes) return { line: '' };
  const parts: string[] = [];
  const named = (label: string, value: unknown) => {
    if (typeof value === 'string' && value !== '') parts.push(`${label} ${value}`);
  };
  named('workflow', at(attributes, ['workflowType', 'name']));
  named('activity', at(attributes, ['activityType', 'name']));
  named('timer', at(attributes, ['timerId']));
  named('marker', at(attributes, ['markerName']));
  // A local activity is a marker whose data names the activity.
  const markerData = at(attributes, ['details', 'data', 'payloads']);
  named('local activity', Array.isArray(markerData) ? at(markerData[0], ['decoded', 'activity_type']) : undefined);
  named('signal', at(attributes, ['signalName']));
  named('update', at(attributes, ['acceptedRequest', 'input', 'name']) ?? at(attributes, ['request', 'input', 'name']));
  const fire = at(attributes, ['startToFireTimeout', 'seconds']);
  if (typeof fire === 'string' || typeof fire === 'number') parts.push(`fires in ${fire} s`);
  const attempt = attributes['attempt'];
  if ((typeof attempt === 'number' || typeof attempt === 'string') && Number(attempt) > 1)
    parts.push(`attempt ${attempt}`);
  const failure = at(attributes, ['failure', 'message']);
  if (typeof failure === 'string' && failure !== '') parts.push(`failure: ${failure}`);
  const cause = at(attributes, ['failure', 'cause', 'message']);
  if (typeof cause === 'string' && cause !== '' && cause !== failure) parts.push(`cause: ${cause}`);
  const payloads = payloadsIn(attributes)
    .map((payload) => (typeof payload === 'string' ? payload : JSON.stringify(payload)))
    .join(' · ');
  if (payloads) parts.push(shorten(payloads));
  const line = parts.join('; ');
  return payloads.length > SUMMARY_LENGTH ? { line, payloads } : { line };
}

/** A collapsed section listing the workflow's history events; empty when there are none to show. */
export function workflowHistorySection(events: unknown[] | undefined): Html {
  if (!events || events.length === 0) return html``;
  const listed = events.length > MAX_LISTED_EVENTS ? events.slice(-MAX_LISTED_EVENTS) : events;
  return html`<section aria-labelledby="history-heading">
    <details data-testid="workflow-history">
      <summary><h2 id="history-heading" class="inline">Temporal history</h2> <span class="muted">(${events.length} events; ops and admins only, secrets redacted)</span></summary>
      <p class="muted">Payloads decoded by the API with secrets redacted; the vendor configuration is left out here (the API's history route has it, redacted).</p>
      ${listed.length < events.length ? html`<p class="muted">The newest ${listed.length} of ${events.length} events; the API's history route has them all.</p>` : ''}
      ${dataTable({
        testId: 'history-events',
        rows: listed,
        rowAttributes: (event) => html`data-testid="history-event" data-event-type="${eventTypeName(event)}"`,
        columns: [
          { label: '#', num: true, cell: (event) => (isRecord(event) ? scalarText(event['eventId'], '') : '') },
          { label: 'When (UTC)', cell: (event) => eventWhen(eventTimeIso(event)) },
          {
            label: 'Event',
            className: () => 'event',
            cell: (event) => html`<code>${breakable(eventTypeName(event))}</code>`,
          },
          { label: 'Summary', className: () => 'prose', cell: summaryCell },
        ],
      })}
    </details>
  </section>`;
}
