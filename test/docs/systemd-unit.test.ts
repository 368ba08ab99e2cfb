// The systemd unit of docs/keep.md, as far as this machine can test it: extracted from the page,
// checked for what a service needs (waits for the network, never restarts on exit 2 or 11),
// and verified by systemd's own `systemd-analyze verify` (Debian's `systemd` package) with its
// ExecStart pointed at this checkout's launcher (verify checks that the command exists).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HEDGE_BIN, ROOT, tempDir } from '../support/hedge-cli.js';

const ANALYZE = spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' }).status === 0;

/** The ```ini block of docs/keep.md that is the unit file. */
function documentedUnit() {
  const page = readFileSync(join(ROOT, 'docs', 'keep.md'), 'utf8');
  const block = /```ini\n(# \/etc\/systemd\/system\/hedge-keep\.service\n[\s\S]*?)```/.exec(page);
  if (!block)
    throw new Error('docs/keep.md has no ```ini block starting with # /etc/systemd/system/hedge-keep.service');
  return block[1];
}

function settings(unit: string, section: string) {
  const found = new Map<string, string[]>();
  let current = '';
  for (const line of unit.split('\n')) {
    const header = /^\[(.+)\]$/.exec(line.trim());
    if (header) current = header[1];
    const setting = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (setting && current === section) found.set(setting[1], [...(found.get(setting[1]) ?? []), setting[2]]);
  }
  return found;
}

it('waits for the network and does not restart on exit 2 (bad input) or 11 (another keeper)', () => {
  const unit = documentedUnit();
  const unitSection = settings(unit, 'Unit');
  const service = settings(unit, 'Service');
  expect([unitSection.get('Wants'), unitSection.get('After')]).toEqual([
    ['network-online.target'],
    ['network-online.target'],
  ]);
  expect(service.get('RestartPreventExitStatus')?.join(' ').split(/\s+/)).toEqual(expect.arrayContaining(['2', '11']));
  expect(service.get('Restart')).toEqual(['on-failure']);
  expect(service.get('ExecStart')?.[0]).toMatch(/^\/usr\/local\/bin\/hedge keep /);
});

it.skipIf(!ANALYZE)(
  'passes systemd-analyze verify with no warning (skipped where systemd-analyze is absent: Debian package systemd)',
  () => {
    const dir = tempDir('hedge-unit-');
    const file = join(dir.path, 'hedge-keep.service');
    writeFileSync(file, documentedUnit().replaceAll('/usr/local/bin/hedge ', `${HEDGE_BIN} `));
    const result = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8', timeout: 60_000 });
    dir.remove();
    // verify exits 0 on an unknown key or a value it cannot parse, warning on stderr: both must be clean.
    expect(result.status, result.stderr).toBe(0);
    expect(
      result.stderr.split('\n').filter((line) => line.includes(file) || line.includes('hedge-keep.service')),
    ).toEqual([]);
  },
);
