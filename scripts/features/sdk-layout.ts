/**
 * Puts this project's installed SDK (every @temporalio package, same files: hard links) into the program's
 * node_modules with one protobufjs for all of them, as the suite's own build has (its package.json pins one
 * protobufjs through a pnpm override). In this project npm left three copies of the SDK's protobufjs, under
 * @temporalio/common, /proto and /worker (the top level holds @grpc/proto-loader's older one), and a protobuf
 * type made by one copy fails the other's `instanceof Type` ("type must be a Type") in the protobuf payload
 * converters, in Node and in the webpack-bundled workflow alike. The one kept is @temporalio/proto's: the
 * SDK 1.24 needs protobufjs 8 (`ext/protojson`), so the suite's pinned 7.5.1 would not do.
 *
 * The program folder lives inside the project, so everything else the SDK requires (webpack, swc, grpc-js…)
 * resolves from the project's node_modules by the usual walk up.
 */
import { copyFileSync, linkSync, mkdirSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';

/** Hard links `from` into `to` (a copy across file systems), leaving out its nested protobufjs. */
function mirror(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'protobufjs' && path.basename(from) === 'node_modules') continue;
      mirror(source, target);
    } else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
      }
    }
  }
}

/** Takes the layout away (before npm works in the folder, so it never prunes or replaces what it did not install). */
export function clearSdkLayout(programDir: string): void {
  // a link is removed, not followed
  for (const name of ['@temporalio', 'protobufjs'])
    rmSync(path.join(programDir, 'node_modules', name), { recursive: true, force: true });
}

export function layOutSdk(projectRoot: string, programDir: string): void {
  const sdk = path.join(projectRoot, 'node_modules/@temporalio');
  clearSdkLayout(programDir);
  for (const name of readdirSync(sdk))
    mirror(path.join(sdk, name), path.join(programDir, 'node_modules/@temporalio', name));
  symlinkSync(path.join(sdk, 'proto/node_modules/protobufjs'), path.join(programDir, 'node_modules/protobufjs'), 'dir');
}
