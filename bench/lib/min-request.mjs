// The floor for one API request from Node, to compare `hedge` with: undici (from node_modules,
// as any script would import it), one GET, the body printed. Key and base URL from the env.
import { request } from 'undici';

const path = process.argv[2] ?? '/markets';
const response = await request(`${process.env.HEDGE_BASE_URL}${path}`, {
  headers: { authorization: `Bearer ${process.env.HEDGE_API_KEY}`, accept: 'application/json' },
});
process.stdout.write(`${await response.body.text()}\n`);
if (response.statusCode !== 200) process.exitCode = 1;
