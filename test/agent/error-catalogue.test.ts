// The error catalogue agents route on (agent/error-catalogue.ts): it covers every exit code of the
// one table, every API code the error guide knows, and every code hedge's own checks throw (read
// from the source, so a new refusal without guidance fails here); each tool carries its share.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GUIDED_CODES } from '../../src/platform/api/error-guide.js';
import { agentTools, catalogueEntry } from '../../src/cli/agent/catalogue.js';
import { errorCatalogue } from '../../src/cli/agent/error-catalogue.js';
import { EXIT_CODES } from '../../src/platform/terminal/exit-codes.js';
import { ROOT } from '../support/hedge-cli.js';
import { COMMANDS } from '../../src/cli/manifest.js';

const catalogue = errorCatalogue();
const codes = new Set(catalogue.map((entry) => entry.code));

// Every .ts file under src/ but the simulator's (any `sandbox` folder).
const SOURCE = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.ts') && !path.split('/').includes('sandbox'))
  .map((path) => readFileSync(join(ROOT, 'src', path), 'utf8'));

it('the error catalogue: covers every exit code of EXIT_CODES, under its name, and names no other', () => {
  for (const { code, name } of EXIT_CODES) {
    const entries = catalogue.filter((entry) => entry.exit_code === code);
    expect(entries.length, `exit code ${code} (${name}) has no entry in the error catalogue`).toBeGreaterThan(0);
    for (const entry of entries) expect(entry.class).toBe(name);
  }
  const known = new Set<number>(EXIT_CODES.map((entry) => entry.code));
  for (const entry of catalogue)
    expect(known.has(entry.exit_code), `${entry.code}: exit ${entry.exit_code}`).toBe(true);
});

it('the error catalogue: has one entry per code, with retry guidance that agrees with itself', () => {
  expect(codes.size).toBe(catalogue.length);
  for (const entry of catalogue) {
    expect(entry.what_to_do.length, entry.code).toBeGreaterThan(10);
    expect(['no', 'after_fix', 'same_call', 'resume']).toContain(entry.retry);
    expect(entry.retryable, `${entry.code}: retryable and retry disagree`).toBe(
      entry.retry === 'same_call' || entry.retry === 'resume',
    );
  }
});

it('the error catalogue: knows every API code of the error guide and every code hedge itself ends with', () => {
  for (const code of GUIDED_CODES) expect(codes.has(code), code).toBe(true);
  const own = new Set<string>();
  for (const text of SOURCE) {
    for (const match of text.matchAll(/new PreTradeCheckError\(\s*'([a-z_]+)'/g)) own.add(match[1]);
    for (const match of text.matchAll(/\bbase\(\s*\d+\s*,\s*'([a-z_]+)'/g)) own.add(match[1]);
  }
  expect(own.size).toBeGreaterThan(10);
  for (const code of own)
    expect(codes.has(code), `${code} is thrown in src/ but has no entry in the error catalogue`).toBe(true);
  expect(
    'max_notional_exceeded max_daily_notional_exceeded market_not_allowed until_not_met outcome_unknown rate_limited'
      .split(' ')
      .filter((code) => !codes.has(code)),
  ).toEqual([]);
});

it('the error catalogue: each tool in hedge tools --json carries its risk and the errors it can end with', () => {
  for (const tool of agentTools(COMMANDS)) {
    const entry = catalogueEntry(tool, 'direct', 120);
    const own = new Set(entry.errors.map((error) => error.code));
    for (const code of ['usage', 'auth', 'network', 'interrupted'])
      expect(own.has(code), `${tool.name}: ${code}`).toBe(true);
    expect(entry.risk.moves_money).toBe(tool.tier === 'write');
    if (tool.tier === 'write') {
      expect(entry.risk.level).toBe('high');
      for (const code of ['outcome_unknown', 'max_notional_exceeded', 'market_not_allowed'])
        expect(own.has(code), `${tool.name}: ${code}`).toBe(true);
      expect(own.has('until_not_met')).toBe(false);
    } else {
      expect(entry.risk.level).toBe('low');
      expect(own.has('until_not_met'), tool.name).toBe(true);
      expect(own.has('outcome_unknown')).toBe(false);
    }
  }
  expect(
    catalogueEntry(
      agentTools(COMMANDS).find((tool) => tool.name === 'plan')!,
      'direct',
      120,
    ).errors.map((error) => error.code),
  ).toContain('changes');
});
