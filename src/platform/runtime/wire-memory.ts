// The one store of wire names learned from a server, so that the next run sends the server's own name at once.
import type { LearnedWire } from '../api/client.js';
import { resolveWireSettings, WIRE_SETTING_SOURCES } from '../api/wire/unspecified.js';
import { configDir, hasStoreFile, type ResolvedCredentials } from '../config/credentials.js';
import type { ProfileStore } from '../config/profile-store.js';
import type { StoreData } from '../config/store-schema.js';
import type { Building } from './settings.js';
import { messageOf } from '../../core/security/safe-text.js';

type LearnedScope = { kind: 'profile'; name: string } | { kind: 'server'; key: string };

export function learnedScopeOf({
  sources,
  profileName,
  baseUrl,
}: Pick<ResolvedCredentials, 'sources' | 'profileName' | 'baseUrl'>): LearnedScope {
  if (sources.baseUrl === 'demo') return { kind: 'server', key: 'demo' };
  if (sources.baseUrl === 'profile' && profileName) return { kind: 'profile', name: profileName };
  return { kind: 'server', key: baseUrl.replace(/\/+$/, '') };
}

export function describeScope(scope: LearnedScope) {
  return scope.kind === 'profile' ? `profile "${scope.name}"` : scope.key === 'demo' ? 'the demo' : scope.key;
}

export function readLearned(data: StoreData, scope: LearnedScope) {
  const found = scope.kind === 'profile' ? data.profiles[scope.name]?.wire_learned : data.learned_wire?.[scope.key];
  return { ...found };
}

export async function saveLearned(store: ProfileStore, scope: LearnedScope, key: string, value: string) {
  await store.update((data) => {
    if (scope.kind === 'server') ((data.learned_wire ??= {})[scope.key] ??= {})[key] = value;
    else if (data.profiles[scope.name]) (data.profiles[scope.name].wire_learned ??= {})[key] = value;
  });
}

/** Forgets what was learned for the scope (or everywhere); returns the names forgotten, as `where: key=value`. */
export async function resetLearned(store: ProfileStore, scope: LearnedScope | 'all') {
  const forgotten: string[] = [];
  // Whether `each` is forgotten (a scope's description names it alone); its names are noted when it is.
  const forget = (each: LearnedScope, names: Record<string, string> | undefined) => {
    const where = describeScope(each);
    if (scope !== 'all' && describeScope(scope) !== where) return false;
    for (const [key, value] of Object.entries(names ?? {})) forgotten.push(`${where}: ${key}=${value}`);
    return true;
  };
  await store.update((data) => {
    for (const [name, profile] of Object.entries(data.profiles))
      if (forget({ kind: 'profile', name }, profile.wire_learned)) delete profile.wire_learned;
    for (const [key, names] of Object.entries(data.learned_wire ?? {}))
      if (forget({ kind: 'server', key }, names)) delete data.learned_wire![key];
    if (data.learned_wire && !Object.keys(data.learned_wire).length) delete data.learned_wire;
  });
  return forgotten;
}

/** The wire names in use for these credentials (environment over profile over what was learned before: a store that
 * cannot be read teaches nothing), and `learn`: keeps a name the client learned and says so once (the next run starts
 * with it), the command's end awaiting the save. */
export async function wireInUse(
  credentials: ResolvedCredentials,
  ports: Pick<Building, 'env' | 'store' | 'log' | 'notify' | 'hedgeCommand' | 'onDispose'>,
) {
  const { env, store, hedgeCommand } = ports;
  const scope = learnedScopeOf(credentials);
  let names = {};
  try {
    if (hasStoreFile(configDir(env))) names = readLearned((await store()).read(), scope);
  } catch (error) {
    ports.log(`learned wire names not read: ${messageOf(error)}`);
  }
  const keep = async (learned: LearnedWire) => {
    const { env: variable, profileKey } = WIRE_SETTING_SOURCES[learned.setting];
    const what =
      learned.setting === 'pageSizeParam'
        ? learned.value === 'none'
          ? 'lists take no page-size parameter'
          : `the page size goes as \`${learned.value}\``
        : `the add/reduce amount goes as \`${learned.value}\``;
    let kept = `kept for ${describeScope(scope)}`;
    try {
      await saveLearned(await store(), scope, profileKey, learned.value);
    } catch (error) {
      kept = `not kept (${messageOf(error)}); set ${variable}=${learned.value} to keep it`;
    }
    ports.notify({
      kind: 'learned-wire',
      level: 'info',
      text: `Learned from the server: ${what} (${learned.evidence}); ${kept}. \`${hedgeCommand('whoami')}\` lists it, \`${hedgeCommand('profile', 'reset-wire')}\` forgets it, ${variable} overrides it.`,
    });
  };
  return {
    ...resolveWireSettings(env, credentials.profileWire, names),
    scope,
    learn(learned: LearnedWire) {
      const keeping = keep(learned);
      ports.onDispose(() => keeping);
    },
  };
}
