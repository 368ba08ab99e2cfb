// Shared by the trading and wizard end-to-end tests: a sandbox server with its own temp config dir,
// the binary run against it, and the server's own view of the account (engine state and request
// log), which is what the tests assert on — never the CLI's word alone.
import type { HedgeState } from '../../src/sandbox/engine-state.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { runHedge, tempDir, type RunOptions, type RunResult } from './hedge-cli.js';

export interface TradingSandbox {
  sandbox: RunningSandbox;
  configDir: string;
  env: Record<string, string>;
  hedge(args: string[], options?: RunOptions): Promise<RunResult>;
  /** Every hedge the server holds for the sandbox's accounts. */
  hedges(): HedgeState[];
  writes(): RunningSandbox['requestLog'];
  close(): Promise<void>;
}

export async function startTradingSandbox(options: SandboxOptions = {}): Promise<TradingSandbox> {
  const sandbox = await startSandbox({ fillDelayMs: 100, ...options });
  const dir = tempDir('hedge-trading-');
  const env = { HEDGE_BASE_URL: sandbox.baseUrl, HEDGE_API_KEY: sandbox.apiKey };
  return {
    sandbox,
    configDir: dir.path,
    env,
    hedge: (args, runOptions = {}) =>
      runHedge(args, { ...runOptions, configDir: dir.path, env: { ...env, ...runOptions.env } }),
    hedges: () => Object.values(sandbox.engine.state.accounts).flatMap((account) => Object.values(account.hedges)),
    writes: () => sandbox.requestLog.filter((entry) => entry.method === 'POST'),
    close: async () => {
      await sandbox.close();
      dir.remove();
    },
  };
}

/** Opens a filled hedge through the CLI itself (fill delay 100 ms) and returns its id. */
export async function openFilled(trading: TradingSandbox, side: 'buy' | 'sell', notional: string): Promise<string> {
  const result = await trading.hedge(['open', 'USDTNGN', side, notional, '--tenor', '3', '--json']);
  if (result.code !== 0) throw new Error(`open failed (${result.code}): ${result.stderr}`);
  const hedge = JSON.parse(result.stdout) as { id: string; status: string };
  if (hedge.status !== 'filled') throw new Error(`open ended ${hedge.status}`);
  return hedge.id;
}

/** A key of the live shape: refused by the sandbox, so any request it made would show in the log. */
export const LIVE_KEY = 'hpk_live_AbCdEfGhIjKlMnOpQrStUvWx';
