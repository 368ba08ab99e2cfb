// TSV and CSV head their columns with hedge's names (docs/output.md): on a server that names a fact
// its own way (alpha's `size_usd`, beta's `id` of a closed hedge), the value it sent is in our
// column, never an empty cell beside a column of the server's name. The real binary, a real sandbox.
import { wireDialect } from '../../src/sandbox/dialects.js';
import { apiData, useSimulators } from '../support/simulator.js';
import { ok } from '../support/cli-runs.js';

const start = useSimulators();

/** The rows of a TSV or CSV output (no quoting in these values), each as {column: cell}. */
function rowsOf(text: string, separator: string) {
  const [header, ...lines] = text.trim().split('\n');
  const names = header.split(separator);
  return lines.map((line) => Object.fromEntries(line.split(separator).map((cell, at) => [names[at], cell])));
}

for (const dialect of ['alpha', 'beta'] as const) {
  it(`TSV and CSV show what the server sent under our column names, on every dialect: ${dialect}: positions, account and history in tsv and csv; a reduce's and a close's result in tsv`, async () => {
    const simulator = await start({ dialect });
    simulator.seedOpen('sell', 3000);
    await apiData(simulator, 'POST', '/hedges/close', { market: 'USDTNGN', side: 'sell' });
    simulator.advance(1_000);
    simulator.seedOpen('buy', 2000);
    const [record] = await apiData(simulator, 'GET', '/hedges/history');
    const account = await apiData(simulator, 'GET', '/account');
    const [position] = await apiData(simulator, 'GET', '/positions');

    const { historyFields, positionFields, accountFields } = wireDialect(dialect);
    for (const [format, separator] of [
      ['tsv', '\t'],
      ['csv', ','],
    ] as const) {
      const read = async (command: string) =>
        rowsOf(ok(await simulator.hedge([command, '--format', format])).stdout, separator);
      expect((await read('history'))[0]).toMatchObject({
        hedge_id: String(record[historyFields.hedge_id!]),
        side: 'sell',
        notional_usd: String(record[historyFields.notional_usd!]),
        closed_at: record[historyFields.closed_at!],
      });
      expect((await read('positions'))[0]).toMatchObject({
        side: 'buy',
        notional_usd: String(position[positionFields.notional_usd!]),
      });
      expect((await read('account'))[0]).toMatchObject({
        margin_in_use_usdc: String(account[accountFields.margin_in_use_usdc!]),
        open_positions: String(account[accountFields.open_positions!]),
      });
    }

    // A write's result: the side after it, then the closed hedge's record.
    const tsv = async (command: string, ...amount: string[]) =>
      rowsOf(ok(await simulator.hedge([command, 'USDTNGN', 'buy', ...amount, '--format', 'tsv'])).stdout, '\t')[0];
    const reduced = await tsv('reduce', '500');
    const [after] = await apiData(simulator, 'GET', '/positions');
    expect(reduced).toMatchObject({
      side: 'buy',
      notional_usd: '1500',
      entry_price: String(after[positionFields.entry_price!]),
    });
    const closed = await tsv('close');
    const [closedRecord] = await apiData(simulator, 'GET', '/hedges/history');
    expect(closed).toMatchObject({
      entry_price: String(closedRecord[historyFields.entry_price!]),
      exit_price: String(closedRecord[historyFields.exit_price!]),
      gross_pnl_usd: String(closedRecord[historyFields.gross_pnl_usd!]),
    });
  });
}
