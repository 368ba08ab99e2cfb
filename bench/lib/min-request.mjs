// A minimal undici script, for reference beside the node:http floor: undici from node_modules
// (as any script would import it: index.js, the whole package), one GET, the body printed.
import { request } from 'undici';

const path = process.argv[2] ?? '/markets';
const response = await request(`${process.env.HEDGE_BASE_URL}${path}`, {
  headers: { authorization: `Bearer ${process.env.HEDGE_API_KEY}`, accept: 'application/json' },
});
process.stdout.write(`${await response.body.text()}\n`);
if (response.statusCode !== 200) process.exitCode = 1;
