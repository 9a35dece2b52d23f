import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmPayloadCodec, CodecKeyError, DEV_KEY_FILE, loadOrCreateDevKeyring } from '../../codec/index.js';

async function freshDir(t: { teardown: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'codec-dev-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'data');
}

test('dev makes a key once, in a 0600 file, and reuses it after a restart', async (t) => {
  const dataDir = await freshDir(t);
  const first = await loadOrCreateDevKeyring(dataDir);
  const path = join(dataDir, DEV_KEY_FILE);
  t.is((await stat(path)).mode & 0o777, 0o600);

  const [encoded] = await new AesGcmPayloadCodec(first).encode([defaultPayloadConverter.toPayload('before restart')]);
  const second = await loadOrCreateDevKeyring(dataDir);
  t.is(second.currentKeyId, first.currentKeyId);
  const [decoded] = await new AesGcmPayloadCodec(second).decode([encoded]);
  t.is(defaultPayloadConverter.fromPayload(decoded), 'before restart');
});

test('two processes starting at once share one key', async (t) => {
  const dataDir = await freshDir(t);
  const keyrings = await Promise.all([1, 2, 3].map(() => loadOrCreateDevKeyring(dataDir)));
  t.deepEqual(new Set(keyrings.map((k) => k.currentKeyId)).size, 1);
});

test('a key file readable by others is tightened to 0600', async (t) => {
  const dataDir = await freshDir(t);
  await loadOrCreateDevKeyring(dataDir);
  const path = join(dataDir, DEV_KEY_FILE);
  await chmod(path, 0o644);
  await loadOrCreateDevKeyring(dataDir);
  t.is((await stat(path)).mode & 0o777, 0o600);
});

test('a damaged key file is an error naming the file, not a silent new key', async (t) => {
  const dataDir = await freshDir(t);
  await loadOrCreateDevKeyring(dataDir);
  const path = join(dataDir, DEV_KEY_FILE);
  await writeFile(path, '{"keys":[{"id":"dev","key":"c2hvcnQ="}]}');
  await t.throwsAsync(loadOrCreateDevKeyring(dataDir), {
    instanceOf: CodecKeyError,
    message: /file .*codec-key\.json.*must decode to 32 bytes/,
  });
  await writeFile(path, 'not json');
  await t.throwsAsync(loadOrCreateDevKeyring(dataDir), { message: /is not JSON/ });
  t.is(await readFile(path, 'utf8'), 'not json', 'the damaged file is left for a person to look at');
});
