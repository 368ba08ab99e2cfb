// An agent toolbox on the simulator, in-process. Its credentials say a test key, or a live-shaped
// one (`liveKey`: what the toolbox believes), while its calls' client talks to the simulator with
// the simulator's own test key (the context seam), so that a live write confirmed with its token
// really lands. The calls' clients share one set of connections per test file, closed when the file ends.
import { createClient } from '../../src/platform/api/client.js';
import { HttpConnections } from '../../src/platform/api/transport.js';
import { registerSecret } from '../../src/core/security/secrets.js';
import type { FileAccess } from '../../src/cli/agent/file-access.js';
import { AgentToolbox, ConfirmationTokens, type AgentLimits } from '../../src/cli/agent/toolbox.js';
import { CommandContext } from '../../src/platform/runtime/context.js';
import { realClock } from '../support/client.js';
import type { Simulator } from '../support/simulator.js';
import { COMMANDS } from '../../src/cli/manifest.js';
import { agentTools } from '../../src/cli/agent/catalogue.js';

/** The live-shaped key a `live` toolbox believes it holds (with --allow-live); a secret, never shown whole. */
const LIVE_SHAPED_KEY = 'hpk_live_AgentToolboxLiveKey0001';
registerSecret(LIVE_SHAPED_KEY);

/** A test file's toolboxes: `on(simulator, options)` gives one whose calls' clients share the file's connections. */
export function useToolboxes() {
  const connections = new HttpConnections();
  afterAll(() => connections.close());
  return (simulator: Simulator, options: { live?: boolean; limits?: AgentLimits; files?: FileAccess } = {}) => {
    const credentials = (apiKey: string, environment: 'live' | 'test') => ({
      apiKey,
      baseUrl: simulator.baseUrl,
      environment,
      sources: { apiKey: 'environment', baseUrl: 'environment' } as const,
    });
    const toolbox = new AgentToolbox(
      {
        env: { HEDGE_CONFIG_DIR: simulator.configDir },
        globals: { json: false, header: true, demo: false, yes: false, input: true, color: false, verbose: false },
        clock: realClock,
        credentials: options.live ? credentials(LIVE_SHAPED_KEY, 'live') : credentials(simulator.apiKey, 'test'),
        files: options.files,
        createContext: (init) =>
          new CommandContext({
            ...init,
            client: createClient({
              connections,
              credentials: credentials(simulator.apiKey, 'test'),
              env: {},
              clock: init.clock,
              signal: init.signal,
            }),
          }),
      },
      new ConfirmationTokens(120, () => 1_000_000),
      { allowLive: options.live === true, limits: options.limits, tools: agentTools(COMMANDS) },
    );
    const call = async (name: string, args: Record<string, unknown>) =>
      (await toolbox.call(name, args, new AbortController().signal))!;
    return { toolbox, call };
  };
}
