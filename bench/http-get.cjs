// The floor for one API request from Node (issue 52): CommonJS, `require('node:http')`, one GET,
// the body printed. Key and base URL from the environment (HEDGE_API_KEY, HEDGE_BASE_URL), as
// `hedge` gets them in the bench. A CommonJS require does not read node:http's `WebSocket` export,
// so on Node >= 22 it does not load Node's own undici (an ES import of node:http does, ~17 ms).
'use strict';
const { request } = require('node:http');

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
