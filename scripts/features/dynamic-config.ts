/**
 * The dynamic config the suite's Go runner gives its dev server (`dockerfiles/dynamicconfig/docker.yaml`: update,
 * eager start, deployments… turned on), as `temporal server start-dev` flags: `--dynamic-config-value key=<JSON>`
 * for each value, constraints left out as the Go runner leaves them out. The file is a map of keys to lists of
 * `- value: <scalar>` entries, and only that shape is read; anything else is an error naming the line.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const DYNAMIC_CONFIG_FILE = 'dockerfiles/dynamicconfig/docker.yaml';

const KEY = /^([A-Za-z][\w.]*):\s*$/;
const VALUE = /^\s+-\s+value:\s*(.+?)\s*$/;
const CONSTRAINTS = /^\s+constraints:/;

/** The flags for the suite's dynamic config; none when the suite has no such file. */
export function dynamicConfigFlags(suite: string): string[] {
  const file = path.join(suite, DYNAMIC_CONFIG_FILE);
  if (!existsSync(file)) return [];
  const flags: string[] = [];
  let key: string | undefined;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (!line.trim() || line.trimStart().startsWith('#') || CONSTRAINTS.test(line)) return;
      const keyMatch = KEY.exec(line);
      if (keyMatch) {
        key = keyMatch[1]!;
        return;
      }
      const valueMatch = VALUE.exec(line);
      if (!valueMatch || !key)
        throw new Error(`${file}:${index + 1}: expected "key:" or "  - value: …", not ${JSON.stringify(line)}`);
      flags.push('--dynamic-config-value', `${key}=${asJson(valueMatch[1]!)}`);
    });
  return flags;
}

/** A YAML scalar as JSON: `true`, `10` and `"quoted"` are JSON already; a bare word is a string. */
function asJson(scalar: string): string {
  try {
    return JSON.stringify(JSON.parse(scalar));
  } catch {
    return JSON.stringify(scalar.replace(/^'(.*)'$/, '$1'));
  }
}
