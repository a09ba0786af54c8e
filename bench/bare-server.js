// The emulator's baseline in the bench: a bare node:https server with the emulator's certificate, asking for the
// client certificate like the emulator (mutual TLS), answering every request with the same JSON body. Prints its port.
//   node bench/bare-server.js <job.json>   job: { cert, key, clientCa: [pem paths], body, contentType }

import { readFile } from 'node:fs/promises';
import { createServer } from 'node:https';

const job = JSON.parse(await readFile(process.argv[2], 'utf8'));
const [cert, key, body, ...ca] = await Promise.all([job.cert, job.key, job.body, ...job.clientCa].map((path) => readFile(path)));
const server = createServer({ cert, key, ca, requestCert: true, rejectUnauthorized: true }, (_request, response) => {
  response.writeHead(200, { 'content-type': job.contentType, 'content-length': body.length });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
