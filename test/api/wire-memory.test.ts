// Keeping a learned wire name: the save is awaited, so a store that cannot be written is said in
// the notice ("not kept", saved: false) and never left behind as an unhandled rejection after the
// command has ended (an in-process run of the whole command found it: the config folder was gone
// by the time the unawaited save reached it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/platform/config/profile-store.js';
import type { ResolvedCredentials } from '../../src/platform/config/credentials.js';
import { WireMemory } from '../../src/platform/runtime/wire-memory.js';
import type { Notice } from '../../src/platform/results/notices.js';

const credentials: ResolvedCredentials = {
  apiKey: 'hpk_test_WireMemoryUnitKey000000001',
  baseUrl: 'http://127.0.0.1:9/partners/p/v2',
  environment: 'test',
  sources: { apiKey: 'environment', baseUrl: 'environment' },
};
const learned = {
  setting: 'pageSizeParam' as const,
  value: 'per_page',
  how: 'refused' as const,
  evidence: 'the server named per_page',
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function memoryWith(store: () => Promise<ProfileStore>, configDir: string) {
  const notices: Notice[] = [];
  const memory = new WireMemory({
    credentials,
    configDir,
    store,
    log: () => {},
    notify: (notice) => notices.push(notice),
    hedgeCommand: (...words) => `hedge ${words.join(' ')}`,
  });
  return { memory, notices };
}

describe('WireMemory.keep', () => {
  it('a name kept is on disk when keep() resolves, and read back by the next run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hedge-wire-memory-'));
    dirs.push(dir);
    const { memory, notices } = memoryWith(async () => new ProfileStore(dir), dir);
    const scope = (await memory.read()).scope;
    await memory.keep(scope, learned);
    expect(notices.map((notice) => notice.data)).toEqual([
      { setting: 'pageSizeParam', value: 'per_page', saved: true },
    ]);
    expect((await memoryWith(async () => new ProfileStore(dir), dir).memory.read()).names).toEqual({
      page_size_param: 'per_page',
    });
  });

  it('a store that cannot be written: the notice says "not kept" and how to keep it; keep() does not reject', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hedge-wire-memory-'));
    dirs.push(dir);
    const failing = {
      update: () => Promise.reject(new Error('Cannot write the config store: EROFS.')),
    } as unknown as ProfileStore;
    const { memory, notices } = memoryWith(async () => failing, dir);
    await expect(memory.keep({ kind: 'server', key: credentials.baseUrl }, learned)).resolves.toBeUndefined();
    expect(notices).toHaveLength(1);
    expect(notices[0].data).toEqual({ setting: 'pageSizeParam', value: 'per_page', saved: false });
    expect(notices[0].text).toMatch(
      /not kept \(Cannot write the config store: EROFS\.\); set HEDGE_\w+=per_page to keep it/,
    );
  });
});
