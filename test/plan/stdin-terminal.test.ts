// A target file of `-` with stdin a terminal: refused before anything is read or sent, suggesting the pipe into the
// command that was typed — plan, apply or keep — with the environment's flag and the options as typed.
import { useSimulators } from '../support/simulator.js';
import { exits } from '../support/cli-runs.js';

const startTrading = useSimulators();

it('apply, plan and keep with - on a terminal: exit 2, nothing sent, the pipe into the same command suggested', async () => {
  const rig = await startTrading();
  const atTerminal = { person: async () => {} };
  for (const [args, meant] of [
    [['--demo', 'apply', '-', '--tolerance', '5', '--adopt', 'DEAL-7'], '--demo apply - --tolerance 5 --adopt DEAL-7'],
    [['plan', '-', '--tolerance', '10'], 'plan - --tolerance 10'],
    [['keep', '-', '--once'], 'keep - --once'],
  ] as const) {
    const refused = exits(await rig.hedge([...args], atTerminal), 2);
    expect(refused.stdout.replace(/\s+/g, ' ')).toMatch(
      new RegExp(
        `stdin is a terminal; pipe the file in \\(\`cat target\\.csv \\| \\S*hedge ${meant.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\`\\) or name it\\.`,
      ),
    );
  }
  expect(rig.sandbox.requestLog).toEqual([]);
});
