/**
 * The run's results for people or as JSON for machines: for one server, a table (and a last line
 * `features: P/N pass`); for both, side by side, a line per feature with each server's result, and each server's
 * count of passed, failed and skipped.
 */
import type { FeatureResult } from './run-feature.js';
import { SERVER_LABELS, type FeatureServerName } from './servers.js';

export interface FeaturesSummary {
  passed: number;
  failed: number;
  /** Features run (skipped ones are not counted). */
  run: number;
  skipped: number;
}

export type ResultsByServer = Partial<Record<FeatureServerName, FeatureResult[]>>;

export function summarize(results: FeatureResult[]): FeaturesSummary {
  const run = results.filter((r) => r.outcome !== 'skip');
  const passed = run.filter((r) => r.outcome === 'pass').length;
  return { passed, failed: run.length - passed, run: run.length, skipped: results.length - run.length };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** Rows of cells as aligned columns, the last column unpadded. */
function columns(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

export function formatTable(results: FeatureResult[], server: FeatureServerName): string {
  const rows = results.map((r) => [
    r.feature,
    r.outcome,
    r.outcome === 'skip' ? '-' : `${seconds(r.durationMs)} s`,
    r.error ?? '',
  ]);
  const { passed, run, skipped } = summarize(results);
  const notes = serverNotes(results);
  return [
    ...columns(['feature', 'result', 'duration', 'error'], rows),
    ...(notes.length ? ['', `${SERVER_LABELS[server]} during failed features:`, ...notes] : []),
    '',
    `skipped: ${skipped}`,
    `features: ${passed}/${run} pass`,
  ].join('\n');
}

/**
 * Both servers side by side: a line per feature (`differs` where the results do), then each feature that failed
 * somewhere with each server's error and what the server said, then a summary line per server.
 */
export function formatSideBySide(byServer: ResultsByServer): string {
  const servers = Object.keys(byServer) as FeatureServerName[];
  const results = servers.map((server) => byServer[server]!);
  const outcome = (r: FeatureResult) => (r.outcome === 'skip' ? 'skip' : `${r.outcome} ${seconds(r.durationMs)} s`);
  const rows = results[0]!.map((first, i) => {
    const row = results.map((of) => of[i]!);
    return [first.feature, ...row.map(outcome), new Set(row.map((r) => r.outcome)).size > 1 ? 'differs' : ''];
  });
  const failures = results[0]!.flatMap((first, i) => {
    const row = results.map((of) => of[i]!);
    if (!row.some((r) => r.outcome === 'fail')) return [];
    return [
      `  ${first.feature}`,
      ...row.flatMap((r, s) => {
        if (r.outcome !== 'fail') return [];
        const note = serverNote(r);
        return [`    ${SERVER_LABELS[servers[s]!]}: ${r.error ?? ''}`, ...(note ? [`      (server: ${note})`] : [])];
      }),
    ];
  });
  const width = Math.max(...servers.map((server) => SERVER_LABELS[server].length)) + 1;
  return [
    ...columns(['feature', ...servers.map((server) => SERVER_LABELS[server]), ''], rows),
    ...(failures.length ? ['', 'failed:', ...failures] : []),
    '',
    ...servers.map((server, s) => {
      const { passed, failed, skipped } = summarize(results[s]!);
      return `${`${SERVER_LABELS[server]}:`.padEnd(width)} ${passed} passed, ${failed} failed, ${skipped} skipped`;
    }),
  ].join('\n');
}

/** What the server said during a failed feature: the RPCs it does not implement, else its first warning. */
function serverNote(result: FeatureResult): string | undefined {
  const unimplemented = Object.keys(result.unimplemented ?? {});
  return unimplemented.length ? `unimplemented ${unimplemented.join(', ')}` : result.serverWarnings?.[0];
}

function serverNotes(results: FeatureResult[]): string[] {
  return results.flatMap((r) => {
    const note = r.outcome === 'fail' ? serverNote(r) : undefined;
    return note ? [`  ${r.feature}: ${note}`] : [];
  });
}

/** Everything but the harness output (there for --verbose), by server. */
export function formatJson(byServer: ResultsByServer): string {
  const servers = Object.fromEntries(
    Object.entries(byServer).map(([server, results]) => [
      server,
      { ...summarize(results), features: results.map(({ output: _output, ...rest }) => rest) },
    ]),
  );
  return JSON.stringify({ servers }, null, 2);
}
