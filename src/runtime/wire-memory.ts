// The wire names hedge learned from a server (api/client.ts `learnWire`), read before the client is
// built and kept when the client learns one (config/learned-wire.ts stores them): a service the
// context builds (ctx.wireMemory()) and the client, doctor and whoami use. What it kept is said
// through the notice port, as data (issue 37: no business rule in the context itself).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LearnedWire } from '../api/client.js';
import type { ResolvedCredentials } from '../config/credentials.js';
import type { LearnedScope } from '../config/learned-wire.js';
import type { ProfileStore } from '../config/profile-store.js';
import type { Notice } from '../ui/notices.js';

export interface WireMemoryDeps {
  credentials: ResolvedCredentials;
  configDir: string;
  store(): Promise<ProfileStore>;
  /** --verbose lines. */
  log(line: string): void;
  notify(notice: Notice): void;
  hedgeCommand(...words: string[]): string;
}

export class WireMemory {
  constructor(private readonly deps: WireMemoryDeps) {}

  /** What was learned before for these credentials, and where it is kept. A store that cannot be read teaches nothing. */
  async read(): Promise<{ scope: LearnedScope; names: Record<string, string> }> {
    const { learnedScopeOf, readLearned } = await import('../config/learned-wire.js');
    const scope = learnedScopeOf(this.deps.credentials);
    if (!existsSync(join(this.deps.configDir, 'config.json'))) return { scope, names: {} };
    try {
      return { scope, names: readLearned((await this.deps.store()).read(), scope) };
    } catch (error) {
      this.deps.log(`learned wire names not read: ${error instanceof Error ? error.message : String(error)}`);
      return { scope, names: {} };
    }
  }

  /** Keeps a wire name the client learned, and says so once (the next run starts with it). */
  async keep(scope: LearnedScope, learned: LearnedWire): Promise<void> {
    const [{ saveLearned, describeScope }, { WIRE_SETTING_SOURCES }] = await Promise.all([
      import('../config/learned-wire.js'),
      import('../api/wire/unspecified.js'),
    ]);
    const { env, profileKey } = WIRE_SETTING_SOURCES[learned.setting];
    const what =
      learned.setting === 'pageSizeParam'
        ? learned.value === 'none'
          ? 'lists take no page-size parameter'
          : `the page size goes as \`${learned.value}\``
        : `the add/reduce amount goes as \`${learned.value}\``;
    let kept = `kept for ${describeScope(scope)}`;
    let saved = true;
    try {
      await saveLearned(await this.deps.store(), scope, profileKey, learned.value);
    } catch (error) {
      saved = false;
      kept = `not kept (${error instanceof Error ? error.message : String(error)}); set ${env}=${learned.value} to keep it`;
    }
    const { hedgeCommand } = this.deps;
    this.deps.notify({
      kind: 'learned-wire',
      level: 'info',
      text: `Learned from the server: ${what} (${learned.evidence}); ${kept}. \`${hedgeCommand('whoami')}\` lists it, \`${hedgeCommand('profile', 'reset-wire')}\` forgets it, ${env} overrides it.`,
      data: { setting: learned.setting, value: learned.value, saved },
    });
  }
}
