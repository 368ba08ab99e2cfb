// `hedge tools`: the catalogue `hedge mcp` serves, for agents that call the CLI directly — the same
// names and JSON Schemas, the safety tier, whether each tool is offered on the current key, its
// risk and errors, and the error catalogue (`--errors`).
// It reads no server: the simulator's request log stays empty.
import { agentTools, inputSchema } from '../../src/cli/agent/catalogue.js';
import { runHedge } from '../support/hedge-cli.js';
import { useSimulators } from '../support/simulator.js';
import { LIVE_KEY } from '../support/keys.js';
import { ok, okJson } from '../support/cli-runs.js';
import { COMMANDS } from '../../src/cli/manifest.js';

const startSimulator = useSimulators();
const tools = agentTools(COMMANDS);

it('hedge tools: --json on a test key: every tool with its schema, tier and offered, and no request; on a live key the write tools are not offered (as `hedge mcp` without --allow-live); without --json a short table: tool, tier, offered, required arguments', async () => {
  const simulator = await startSimulator();
  const catalogue: any[] = okJson(await simulator.hedge(['tools', '--json']));
  expect(catalogue.map((entry) => [entry.name, entry.tier, entry.offered])).toEqual(
    tools.map((tool) => [tool.name, tool.tier, true]),
  );
  const quote = catalogue.find((entry) => entry.name === 'quote')!;
  expect(quote).toMatchObject({
    command: 'hedge quote',
    input_schema: inputSchema(
      tools.find((tool) => tool.name === 'quote')!,
      'direct',
    ),
  });
  expect(quote.description).toMatch(/^Quote a hedge: .*CLI example: hedge quote USDTNGN buy 10000 --tenor 3$/);
  // Each tool carries its risk and the errors it can end with, with retry guidance.
  const open = catalogue.find((entry) => entry.name === 'open')!;
  expect(open.risk).toMatchObject({ level: 'high', moves_money: true, journaled: true });
  expect(open.errors.map((error: { code: string }) => error.code)).toEqual(
    expect.arrayContaining(['usage', 'exposure_exceeded', 'outcome_unknown', 'max_notional_exceeded']),
  );
  expect(catalogue.find((entry) => entry.name === 'positions')!.risk).toMatchObject({ level: 'low' });

  const errors: any[] = okJson(await simulator.hedge(['tools', '--errors', '--json']));
  expect(Object.fromEntries(errors.map((one) => [one.code, one]))).toMatchObject({
    rate_limited: { exit_code: 5, class: 'network', retryable: true, retry: 'same_call' },
    outcome_unknown: { exit_code: 5, retryable: true, retry: 'resume' },
  });
  expect(ok(await simulator.hedge(['tools', '--errors'])).stdout).toMatch(
    /^code\texit_code\tclass\tretryable\tretry\twhat_to_do/,
  );
  expect(simulator.sandbox.requestLog).toEqual([]);

  // On a live key the write tools are not offered (as `hedge mcp` without --allow-live); a live key goes over https only.
  const liveEnv = { env: { HEDGE_API_KEY: LIVE_KEY, HEDGE_BASE_URL: simulator.baseUrl.replace('http:', 'https:') } };
  const result = ok(await simulator.hedge(['tools', '--json'], liveEnv));
  const live: any[] = JSON.parse(result.stdout);
  expect(live.filter((entry) => entry.offered).map((entry) => entry.name)).toEqual(
    tools.filter((tool) => tool.tier === 'read').map((tool) => tool.name),
  );
  expect(result.stderr).toBe('');
  expect(simulator.sandbox.requestLog).toEqual([]);

  // Without --json a short table: tool, tier, offered, required arguments.
  const lines = ok(await simulator.hedge(['tools'], liveEnv)).stdout.split('\n');
  expect(lines).toContain('quote\tread\tyes\tmarket side notional tenor');
  expect(lines).toContain('open\twrite\tno\tmarket side notional tenor (+8 optional)');
  expect(lines).toContain('markets\tread\tyes\t(+1 optional)');
});

it('hedge tools: without any key it still answers (writes not offered) and says why on stderr; --demo is a test key', async () => {
  const bare = ok(await runHedge(['tools', '--json']));
  expect(JSON.parse(bare.stdout).every((entry: any) => entry.offered === (entry.tier === 'read'))).toBe(true);
  expect(bare.stderr).toMatch(/^No usable API key: .* Write tools are shown as not offered\.\n$/);

  const demo: any[] = okJson(await runHedge(['--demo', 'tools', '--json']));
  expect(demo.every((entry) => entry.offered)).toBe(true);
});
