// Everything a command touches comes from here, so a test can run any command with fake streams,
// TTY on or off, a fake clock and a scripted prompter. Heavy pieces (the config store, the API
// client, the prompter, the demo sandbox) are built on first use only.
import type { HedgeClient } from './api/client.js';
import type { Clock } from './api/transport.js';
import type { Environment } from './config/api-key.js';
import { configDir, needsProfileStore, resolveCredentials, type Env, type ResolvedCredentials } from './config/credentials.js';
import type { ProfileStore } from './config/profile-store.js';
import type { Prompter } from './ui/prompter.js';
import type { Output } from './ui/output.js';

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
}

export interface GlobalOptions {
  json: boolean;
  profile?: string;
  demo: boolean;
  yes: boolean;
  /** false with --no-input */
  input: boolean;
  /** false with --no-color */
  color: boolean;
  verbose: boolean;
  /** --timeout in seconds: bounds the whole command, waits included. */
  timeout?: number;
  /** --request-timeout in seconds: bounds each HTTP attempt. */
  requestTimeout?: number;
}

export interface DemoHandle {
  baseUrl: string;
  apiKey: string;
  close(): Promise<void>;
}

export interface ContextInit {
  io: Io;
  env: Env;
  globals: GlobalOptions;
  clock: Clock;
  signal: AbortSignal;
  output: Output;
  /** Overrides for tests; each is built lazily otherwise. */
  prompter?: Prompter;
  store?: ProfileStore;
  startDemo?: (configDir: string) => Promise<DemoHandle>;
}

export class CommandContext {
  readonly io: Io;
  readonly env: Env;
  readonly globals: GlobalOptions;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly output: Output;
  /** Absolute clock time when --timeout runs out. */
  readonly deadline?: number;
  private readonly init: ContextInit;
  private storeInstance?: ProfileStore;
  private credentialsPromise?: Promise<ResolvedCredentials>;
  private clientPromise?: Promise<HedgeClient>;
  private prompterInstance?: Prompter;
  private readonly disposers: Array<() => Promise<void> | void> = [];

  constructor(init: ContextInit) {
    this.init = init;
    this.io = init.io;
    this.env = init.env;
    this.globals = init.globals;
    this.clock = init.clock;
    this.signal = init.signal;
    this.output = init.output;
    this.deadline = init.globals.timeout === undefined ? undefined : init.clock.now() + init.globals.timeout * 1000;
    this.storeInstance = init.store;
    this.prompterInstance = init.prompter;
  }

  /** Prompts are allowed only with a TTY on both ends and without --no-input. */
  get interactive(): boolean {
    return this.globals.input && this.io.stdinIsTTY && this.io.stdoutIsTTY;
  }

  get configDir(): string {
    return configDir(this.env);
  }

  /** --verbose lines on stderr. */
  log(line: string): void {
    if (this.globals.verbose) this.io.stderr.write(`${this.output.chalk.dim(line)}\n`);
  }

  async store(): Promise<ProfileStore> {
    if (!this.storeInstance) {
      const { ProfileStore } = await import('./config/profile-store.js');
      this.storeInstance = new ProfileStore(this.configDir);
    }
    return this.storeInstance;
  }

  credentials(): Promise<ResolvedCredentials> {
    this.credentialsPromise ??= this.resolve();
    return this.credentialsPromise;
  }

  private async resolve(): Promise<ResolvedCredentials> {
    if (this.globals.demo) {
      // Said when the simulator is actually used, so that bad input under --demo stays one line.
      if (!this.globals.json) this.output.note(this.output.chalk.cyan(`DEMO — local simulator with test funds (state in ${this.configDir})`));
      const start = this.init.startDemo ?? (await import('./sandbox/demo.js')).startDemo;
      const demo = await start(this.configDir);
      this.onDispose(() => demo.close());
      const { registerSecret } = await import('./config/api-key.js');
      registerSecret(demo.apiKey);
      return {
        apiKey: demo.apiKey,
        baseUrl: demo.baseUrl,
        environment: 'test',
        profileName: 'demo',
        sources: { apiKey: 'demo', baseUrl: 'demo', profile: 'demo' },
      };
    }
    // The store module (conf) is loaded only when resolving will read it.
    const store = needsProfileStore(this.globals.profile, this.env) ? await this.store() : undefined;
    return resolveCredentials({
      profileFlag: this.globals.profile,
      env: this.env,
      store: () => {
        if (!store) throw new Error('profile store needed but not opened');
        return store;
      },
    });
  }

  async environment(): Promise<Environment> {
    return (await this.credentials()).environment;
  }

  client(): Promise<HedgeClient> {
    this.clientPromise ??= this.buildClient();
    return this.clientPromise;
  }

  private async buildClient(): Promise<HedgeClient> {
    const credentials = await this.credentials();
    const { createClient } = await import('./api/create-client.js');
    const client = createClient({
      credentials,
      env: this.env,
      clock: this.clock,
      deadline: this.deadline,
      timeoutSeconds: this.globals.timeout,
      signal: this.signal,
      requestTimeoutSeconds: this.globals.requestTimeout,
      log: this.globals.verbose ? (line) => this.log(line) : undefined,
    });
    const { closeTransport } = await import('./api/transport.js');
    this.onDispose(closeTransport);
    return client;
  }

  async prompter(): Promise<Prompter> {
    if (!this.prompterInstance) {
      const { createInquirerPrompter } = await import('./ui/prompter.js');
      this.prompterInstance = createInquirerPrompter(this.io, this.signal);
    }
    return this.prompterInstance;
  }

  onDispose(dispose: () => Promise<void> | void): void {
    this.disposers.push(dispose);
  }

  async dispose(): Promise<void> {
    for (const dispose of this.disposers.reverse()) {
      try {
        await dispose();
      } catch {
        // Cleanup must never mask the command's own outcome.
      }
    }
    this.disposers.length = 0;
  }
}
