// The floor under `hedge --demo markets --json` set by the parts the person chose, with nothing of
// hedge's own: commander parses the command line, an in-process node:http server answers one GET on
// loopback (as the demo's simulator does), and the answer is checked by a zod/mini schema and
// printed. bench/run.mjs bundles it with esbuild as dist/ is bundled and times it against
// `node -e 0`; what the 2.5× goal leaves over this is what hedge's own code may cost.
import { Command } from 'commander';
import * as z from 'zod/mini';

const http = process.getBuiltinModule('node:http');
const markets = z.array(z.object({ market: z.string(), status: z.string(), price: z.number() }));
const program = new Command('hedge').option('--demo').option('--json');
program.command('markets').action(() => {
  const server = http.createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify([{ market: 'USDTNGN', status: 'open', price: 1507.7 }]));
  });
  server.listen(0, '127.0.0.1', () => {
    http.get({ host: '127.0.0.1', port: server.address().port, path: '/markets' }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk) => (body += chunk));
      response.on('end', () => {
        process.stdout.write(`${JSON.stringify(markets.parse(JSON.parse(body)), null, 2)}\n`);
        server.close();
      });
    });
  });
});
program.parse();
