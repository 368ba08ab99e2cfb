// How each service of a command is built from its settings and the services built before it. The context
// (context.ts) asks each once, on first use, and closes what a builder registers when the command ends.
import { UsageError } from '../../core/errors.js';
import { displayWidth, shortenMiddle } from '../terminal/width.js';
import { configDir, resolveCredentials, type ResolvedCredentials } from '../config/credentials.js';
import { journalDir } from '../journal/location.js';
import type { Journal } from '../journal/index.js';
import type { Building, ClientSettings, CompletionWords } from './settings.js';

/** The builders of one command's services, over what they read of it (`b`: its context). */
export function services(b: Building) {
  async function journalChoice() {
    return (await import('../config/journal-store.js')).chooseJournalStore({
      demo: b.globals.demo,
      profileFlag: b.globals.profile,
      env: b.env,
      configDir: configDir(b.env),
      store: b.store,
    });
  }

  const store = async () => new (await import('../config/profile-store.js')).ProfileStore(configDir(b.env));

  async function client() {
    const [{ maxAnswerBytes }, { resolveWireSettings }] = await Promise.all([
      import('../api/client.js'),
      import('../api/wire/unspecified.js'),
    ]);
    // What the environment alone sets is checked before the credentials are read: a bad value is the one
    // line said, before a demo starts its simulator.
    const { problem } = resolveWireSettings(b.env);
    if (problem) throw new UsageError(problem);
    maxAnswerBytes(b.env);
    const inUse = await wire();
    if (inUse.problem) throw new UsageError(inUse.problem);
    return clientFor(await b.credentials(), {
      wire: inUse.settings,
      pageSizeLearned: inUse.sources.pageSizeParam === 'learned',
      learn: inUse.learn,
      warn: (text) => b.notify({ kind: 'wire-warning', level: 'warn', text }),
      seen: b.rememberForCompletion,
    });
  }

  /** A client for these credentials on this command's connections, clock, deadline, signal and timeouts, requests
   * logged under --verbose. */
  async function clientFor(credentials: ResolvedCredentials, more?: ClientSettings) {
    const { createClient } = await import('../api/client.js');
    const { globals } = b;
    return createClient({
      connections: await b.connections(),
      credentials,
      env: b.env,
      clock: b.clock,
      deadline: b.deadline,
      timeoutSeconds: globals.timeout,
      signal: b.signal,
      requestTimeoutSeconds: globals.requestTimeout,
      log: globals.verbose ? b.log : undefined,
      ...more,
    });
  }

  /** The wire names in use, and where a name the client learns is kept. */
  async function wire() {
    const [credentials, { wireInUse }] = await Promise.all([b.credentials(), import('./wire-memory.js')]);
    return wireInUse(credentials, b);
  }

  const prompter = async () => (await import('../terminal/prompter.js')).createInquirerPrompter(b.io, b.signal, b.env);

  return {
    journalChoice,
    store,
    client,
    clientFor,
    wire,
    prompter,
    /** The local file, or the team's PostgreSQL store whose sessions (and locks) end with the command. */
    async journal(): Promise<Journal> {
      const choice = await journalChoice();
      const { openJournal, openTeamJournal, sayEachSkipOnce } = await import('../journal/index.js');
      const dir = journalDir(b.env);
      const shared = {
        now: b.clock.now,
        sleep: b.clock.sleep,
        onSkip: sayEachSkipOnce((text) => b.output.warn(text)),
      };
      if (choice.kind === 'file')
        return openJournal({
          dir,
          ...shared,
          notice: (text) => b.notify({ kind: 'lock-record-skipped', level: 'warn', text }),
        });
      const team = await openTeamJournal({
        ...choice,
        fallbackDir: dir,
        ...shared,
        log: b.log,
        signal: b.signal,
        deadline: b.deadline,
      });
      b.onDispose(() => team.close?.());
      return team;
    },

    async credentials() {
      const { globals, output, env } = b;
      if (globals.demo) {
        // Said when the simulator is actually used, so that bad input under --demo stays one line.
        output.textNote(output.chalk.cyan(demoBanner(configDir(env), output.isHuman ? output.columns : Infinity)));
        const demo = await (await import('./start-demo.js')).startDemo(configDir(env));
        b.onDispose(() => demo.close());
        if (demo.notice) output.warn(demo.notice);
        return demo.credentials;
      }
      return resolveCredentials({
        profileFlag: globals.profile,
        env,
        // The store module (conf) is loaded only when resolving reads it.
        store: b.store,
        // A key helper or keyring that hangs ends with --timeout (or its own bound) and with Ctrl-C.
        reading: { signal: b.signal, deadline: b.deadline, now: b.clock.now },
      });
    },

    /** Built when no caller gave its own (the agent server's, never closed here). */
    async connections() {
      const connections = new (await import('../api/transport.js')).HttpConnections();
      b.onDispose(() => connections.close());
      return connections;
    },

    /** The markets and hedge ids a command read, kept for shell completion once it ends (never its outcome's
     * concern: a folder or file that cannot be written is passed over). */
    completionMemory() {
      const kept: CompletionWords & { markets: string[]; hedges: string[]; relationships: string[] } = {
        markets: [],
        hedges: [],
        relationships: [],
      };
      b.onDispose(async () => {
        const { accountKey, rememberCompletionWords } = await import('../journal/completion-words.js');
        // The ids are the account's the run used: the demo's or a saved profile's (one from the environment: none).
        const credentials =
          kept.hedges.length || kept.relationships.length ? await b.credentials().catch(() => undefined) : undefined;
        const account = b.globals.demo
          ? accountKey({ demo: true })
          : credentials?.sources.apiKey === 'profile' && credentials.profileName !== undefined
            ? accountKey({ profile: credentials.profileName })
            : undefined;
        rememberCompletionWords(journalDir(b.env), kept, account);
      });
      // The latest read first, each word once: a watch or a keeper reads the same ones again and again.
      const latest = (now: string[] = [], before: string[]) => [...new Set([...now, ...before])].slice(0, 500);
      return (words: CompletionWords) => {
        if (words.marketsList) kept.marketsList = latest(words.marketsList, []);
        for (const kind of ['markets', 'hedges', 'relationships'] as const)
          kept[kind] = latest(words[kind], kept[kind]);
      };
    },

    /** A spinner on a terminal, one line in a pipe, nothing under --json or when a caller takes the notices. */
    async startProgress(label: string, since: number) {
      return (await import('../terminal/spinner.js')).startProgress(
        {
          ...b.io,
          // A caller that takes this context's notices (a keeper's step) is drawn nothing.
          quiet: b.globals.json || b.init.notify !== undefined,
          env: b.env,
          output: b.output,
          now: b.clock.now,
          onDispose: b.onDispose,
        },
        label,
        since,
      );
    },

    /** A live question starts with a red LIVE. */
    async confirm({ message, live, ...rest }: { message: string; default?: boolean; live?: boolean }) {
      return (await b.prompter()).confirm({
        message: live ? `${b.output.chalk.red.bold('LIVE')} ${message}` : message,
        ...rest,
      });
    },
  };
}

export type Services = ReturnType<typeof services>;

/** The demo's banner on one line of `columns`: its state folder shortened in the middle where the whole does not fit. */
function demoBanner(folder: string, columns: number) {
  const full = 'DEMO — local simulator with test funds';
  if (!Number.isFinite(columns)) return `${full} (state in ${folder})`;
  const roomFor = (head: string) => columns - displayWidth(`${head} (state in )`);
  const head = roomFor(full) >= Math.min(12, displayWidth(folder)) ? full : 'DEMO — test funds';
  return `${head} (state in ${shortenMiddle(folder, Math.max(roomFor(head), 8))})`;
}
