// The floor for one API request from Node: `node:http`, one GET, the body printed. Key and base
// URL from the environment (HEDGE_API_KEY, HEDGE_BASE_URL), as `hedge` gets them in the bench.
// node:http as an ES import, the way such a script is usually written; with --builtin, by
// process.getBuiltinModule as hedge loads it (on Node >= 22 the ES import also loads Node's undici).
const { request } = process.argv.includes('--builtin') ? process.getBuiltinModule('node:http') : await import('node:http');

const url = new URL(`${process.env.HEDGE_BASE_URL}${process.argv[2] ?? '/markets'}`);
const headers = { authorization: `Bearer ${process.env.HEDGE_API_KEY}`, accept: 'application/json' };
request(url, { headers }, (response) => {
  const chunks = [];
  response.on('data', (chunk) => chunks.push(chunk));
  response.on('end', () => {
    process.stdout.write(`${Buffer.concat(chunks).toString('utf8')}\n`);
    if (response.statusCode !== 200) process.exitCode = 1;
  });
}).end();
