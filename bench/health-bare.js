// The baseline for bench/health.ts: a bare node:http server answering every request with the
// same status, headers and JSON body as the engine's GET sys/health (given in KEYWARD_BARE_BODY).
'use strict';
const { createServer } = require('node:http');
const body = Buffer.from(process.env.KEYWARD_BARE_BODY || '{}');
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': String(body.length) });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => process.exit(0)); // a normal exit: --cpu-prof writes its profile
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
