// One GET over a local socket through a keep-alive node:http agent, as the demo sends its requests,
// with `servername: ''` (as the transport does) or without it (`--plain`): the pair that prices it.
'use strict';
const http = process.getBuiltinModule('node:http');
const path = `\0hedge-bench-${process.pid}`;
const server = http.createServer((request, response) => response.end('{}'));
server.listen(path, () => {
  const options = { socketPath: path, agent: new http.Agent({ keepAlive: true }) };
  if (process.argv[2] !== '--plain') options.servername = '';
  http.get('http://localhost/markets', options, (response) => {
    response.resume().on('end', () => {
      options.agent.destroy();
      server.close();
    });
  });
});
