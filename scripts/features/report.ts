/** The run's results as a table for people (and a last line `features: P/N pass`) or as JSON for machines. */
import type { FeatureResult } from './run-feature.js';

export interface FeaturesSummary {
  passed: number;
  /** Features run (skipped ones are not counted). */
  run: number;
  skipped: number;
}

export function summarize(results: FeatureResult[]): FeaturesSummary {
  const run = results.filter((r) => r.outcome !== 'skip');
  return {
    passed: run.filter((r) => r.outcome === 'pass').length,
    run: run.length,
    skipped: results.length - run.length,
  };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

export function formatTable(results: FeatureResult[]): string {
  const rows = results.map((r) => [
    r.feature,
    r.outcome,
    r.outcome === 'skip' ? '-' : `${seconds(r.durationMs)} s`,
    r.error ?? '',
  ]);
  const header = ['feature', 'result', 'duration', 'error'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const { passed, run, skipped } = summarize(results);
  return [
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    ...serverNotes(results),
    '',
    `skipped: ${skipped}`,
    `features: ${passed}/${run} pass`,
  ].join('\n');
}

/** What the devserver said during each failed feature: the RPCs it does not implement, else its first warning. */
function serverNotes(results: FeatureResult[]): string[] {
  const notes = results.flatMap((r) => {
    if (r.outcome !== 'fail') return [];
    const unimplemented = Object.keys(r.unimplemented ?? {});
    const note = unimplemented.length ? `unimplemented ${unimplemented.join(', ')}` : r.serverWarnings?.[0];
    return note ? [`  ${r.feature}: ${note}`] : [];
  });
  return notes.length ? ['', 'devserver during failed features:', ...notes] : [];
}

/** Everything but the harness output (there for --verbose). */
export function formatJson(results: FeatureResult[]): string {
  return JSON.stringify(
    { ...summarize(results), features: results.map(({ output: _output, ...rest }) => rest) },
    null,
    2,
  );
}
