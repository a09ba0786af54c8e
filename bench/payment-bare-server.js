// The baseline of the payment POSTs: a bare node:https server with the emulator's certificate, asking for the client
// certificate (mutual TLS), doing the signature work of a payment consent POST and nothing else — it verifies the
// request's detached JWS (PS256, node:crypto, against the TPP's public key) and signs its answer the same way (OB R/W
// Data API Profile "Message Signing"), answering every request with the same JSON body (201). Prints its port.
//   node bench/payment-bare-server.js <job.json>
//   job: { cert, key, clientCa: [pem paths], body, contentType, tppKey (public JWK), bankKey (private JWK), bankKid, iss }

import { Buffer } from 'node:buffer';
import { constants, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:https';

const job = JSON.parse(await readFile(process.argv[2], 'utf8'));
const [cert, key, body, ...ca] = await Promise.all([job.cert, job.key, job.body, ...job.clientCa].map((path) => readFile(path)));
const tppKey = createPublicKey({ key: job.tppKey, format: 'jwk' });
const bankKey = createPrivateKey({ key: job.bankKey, format: 'jwk' });
const PSS = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
const b64 = (data) => Buffer.from(data).toString('base64url');

function verified(signature, payload) {
  const [header = '', detached, value = ''] = String(signature ?? '').split('.');
  if (detached !== '') return false;
  let jose;
  try {
    jose = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  } catch {
    return false;
  }
  if (jose.alg !== 'PS256' || !Array.isArray(jose.crit)) return false;
  return verify('sha256', Buffer.from(`${header}.${b64(payload)}`), { key: tppKey, ...PSS }, Buffer.from(value, 'base64url'));
}

function signed(payload) {
  const header = b64(
    JSON.stringify({
      alg: 'PS256',
      kid: job.bankKid,
      'http://openbanking.org.uk/iat': Math.floor(Date.now() / 1000),
      'http://openbanking.org.uk/iss': job.iss,
      'http://openbanking.org.uk/tan': 'openbanking.org.uk',
      crit: ['http://openbanking.org.uk/iat', 'http://openbanking.org.uk/iss', 'http://openbanking.org.uk/tan'],
    }),
  );
  return `${header}..${b64(sign('sha256', Buffer.from(`${header}.${b64(payload)}`), { key: bankKey, ...PSS }))}`;
}

const server = createServer({ cert, key, ca, requestCert: true, rejectUnauthorized: true }, (request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    if (!verified(request.headers['x-jws-signature'], Buffer.concat(chunks))) {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end('{"Code":"400","Errors":[{"ErrorCode":"UK.OBIE.Signature.Invalid"}]}');
      return;
    }
    response.writeHead(201, { 'content-type': job.contentType, 'content-length': body.length, 'x-jws-signature': signed(body) });
    response.end(body);
  });
});
// Idle keep-alive connections live 65 s, as the emulator's do (src/sandbox/index.ts): with Node.js's 5 s, the
// connections idle while the load client signs its next round's bodies, and a POST sent as the server closes one is
// lost (undici retries no POST).
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
