// How a command's services are built, each from the few parts it needs: the journal (file or team
// store), the credentials (profile, environment or the demo's simulator), the wire memory and the
// API client. runtime/context.ts decides when (on first use, once) and owns their disposal.
import type { HedgeClient } from '../api/client.js';
import type { Clock, HttpConnections } from '../api/transport.js';
import { needsProfileStore, resolveCredentials, type Env, type ResolvedCredentials } from '../config/credentials.js';
import type { JournalStoreChoice } from '../config/journal-store.js';
import type { ProfileStore } from '../config/profile-store.js';
import type { DemoHandle } from '../demo/start-demo.js';
import type { Journal } from '../journal/index.js';
import type { Notice } from '../ui/notices.js';
import type { Output } from '../ui/output.js';
import type { GlobalOptions } from './globals.js';
import type { WireMemory } from './wire-memory.js';

/** What every builder here may draw on: the command's settings and its other services. */
export interface ServiceParts {
  env: Env;
  globals: GlobalOptions;
  clock: Clock;
  signal: AbortSignal;
  deadline?: number;
  configDir: string;
  store(): Promise<ProfileStore>;
  credentials(): Promise<ResolvedCredentials>;
  connections(): Promise<HttpConnections>;
  /** Where a warning or a note is said. */
  output: Pick<Output, 'warn' | 'note' | 'chalk'>;
  log(line: string): void;
  notify(notice: Notice): void;
  hedgeCommand(...words: string[]): string;
  onDispose(dispose: () => Promise<void> | void): void;
}

/** Which journal store this command uses, and where that came from (config/journal-store.ts). */
export async function chooseCommandJournal(parts: ServiceParts): Promise<JournalStoreChoice> {
  const { chooseJournalStore } = await import('../config/journal-store.js');
  return chooseJournalStore({
    demo: parts.globals.demo,
    profileFlag: parts.globals.profile,
    env: parts.env,
    configDir: parts.configDir,
    store: () => parts.store(),
  });
}

/**
 * The local file (state folder, or beside the config when HEDGE_CONFIG_DIR is set), or the team's
 * PostgreSQL store; the store's client is loaded only then, and its sessions (and so its locks)
 * end when the command does.
 */
export async function openCommandJournal(parts: ServiceParts, choice: JournalStoreChoice): Promise<Journal> {
  const { openJournal, journalDir } = await import('../journal/index.js');
  if (choice.kind === 'file') {
    const { sayEachSkipOnce } = await import('../journal/skip-report.js');
    return openJournal({
      dir: journalDir(parts.env),
      now: parts.clock.now,
      onSkip: sayEachSkipOnce((text) => parts.output.warn(text)),
    });
  }
  const { openTeamJournal } = await import('../journal/store.js');
  const team = await openTeamJournal({
    url: choice.url,
    shown: choice.shown,
    source: choice.source,
    fallbackDir: journalDir(parts.env),
    now: parts.clock.now,
    log: (line) => parts.log(line),
  });
  parts.onDispose(() => team.close?.());
  return team;
}

export async function resolveCommandCredentials(
  parts: ServiceParts,
  startDemo?: (configDir: string) => Promise<DemoHandle>,
): Promise<ResolvedCredentials> {
  if (parts.globals.demo) {
    // Said when the simulator is actually used, so that bad input under --demo stays one line.
    if (!parts.globals.json)
      parts.output.note(
        parts.output.chalk.cyan(`DEMO — local simulator with test funds (state in ${parts.configDir})`),
      );
    const demoModule = await import('../demo/start-demo.js');
    const demo = await (startDemo ?? demoModule.startDemo)(parts.configDir);
    parts.onDispose(() => demo.close());
    if (demo.notice) parts.output.warn(demo.notice);
    return demoModule.demoCredentials(demo);
  }
  // The store module (conf) is loaded only when resolving will read it.
  const store = needsProfileStore(parts.globals.profile, parts.env) ? await parts.store() : undefined;
  return resolveCredentials({
    profileFlag: parts.globals.profile,
    env: parts.env,
    store: () => {
      if (!store) throw new Error('profile store needed but not opened');
      return store;
    },
    // A key helper or keyring that hangs ends with --timeout (or its own bound) and with Ctrl-C.
    reading: { signal: parts.signal, deadline: parts.deadline, now: () => parts.clock.now() },
  });
}

/** The wire names learned from this server before, read and kept (runtime/wire-memory.ts). */
export async function commandWireMemory(parts: ServiceParts): Promise<WireMemory> {
  const [credentials, { WireMemory }] = await Promise.all([parts.credentials(), import('./wire-memory.js')]);
  return new WireMemory({
    credentials,
    configDir: parts.configDir,
    store: () => parts.store(),
    log: (line) => parts.log(line),
    notify: (notice) => parts.notify(notice),
    hedgeCommand: (...words) => parts.hedgeCommand(...words),
  });
}

export async function buildCommandClient(parts: ServiceParts): Promise<HedgeClient> {
  const credentials = await parts.credentials();
  const [{ createClient }, { resolveWireSettings }, { UsageError }] = await Promise.all([
    import('../api/create-client.js'),
    import('../api/wire/unspecified.js'),
    import('../errors.js'),
  ]);
  const memory = await commandWireMemory(parts);
  const learned = await memory.read();
  const wire = resolveWireSettings(parts.env, credentials.profileWire, learned.names);
  if (wire.problem) throw new UsageError(wire.problem);
  return createClient({
    connections: await parts.connections(),
    wire: wire.settings,
    learn: (found) => {
      const keeping = memory.keep(learned.scope, found);
      parts.onDispose(() => keeping);
    },
    warn: (text) => parts.notify({ kind: 'wire-warning', level: 'warn', text }),
    credentials,
    env: parts.env,
    clock: parts.clock,
    deadline: parts.deadline,
    timeoutSeconds: parts.globals.timeout,
    signal: parts.signal,
    requestTimeoutSeconds: parts.globals.requestTimeout,
    log: parts.globals.verbose ? (line) => parts.log(line) : undefined,
  });
}
