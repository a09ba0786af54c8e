// The bench's payment sections (bench/payment-posts.js, bench/vrp-mandate.js): every section is wired into `npm run
// bench`, and the bare server the emulator's payment POSTs are compared with does the signature work it is credited
// with — it refuses a body its JWS does not cover and signs every answer (checked here with node:crypto directly).

import { spawn } from 'node:child_process';
import { constants, createPrivateKey, generateKeyPairSync, verify } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';

import { getTestIdentity, scratchDir } from '../helpers/identity.js';

const BENCH = join(import.meta.dirname, '../../bench');
interface PaymentSign {
  signedPost: (job: object) => { body: string; headers: Record<string, string> };
}
const SIGN = '../../bench/payment-sign.js';
const sign = (await import(SIGN)) as PaymentSign;

describe('every bench section is in npm run bench', () => {
  it("each file's exported …Rows function is called by bench/run.js or bench/peers.js", () => {
    const wiring = ['run.js', 'peers.js'].map((name) => readFileSync(join(BENCH, name), 'utf8')).join('\n');
    const sections = readdirSync(BENCH)
      .filter((name) => name.endsWith('.js'))
      .flatMap((name) => [...readFileSync(join(BENCH, name), 'utf8').matchAll(/^export async function (\w+Rows)\(/gm)].map((m) => m[1]));
    expect(sections).toEqual(expect.arrayContaining(['paymentPostRows', 'vrpMandateRows', 'signingRows']));
    for (const section of sections) expect(wiring, section).toMatch(new RegExp(`\\b${section}\\(`));
  });
});

describe('the bare payment server does the signature work', () => {
  it('answers 201 signed by the bank key to a signed POST, and 400 to a body its signature does not cover', async () => {
    const identity = await getTestIdentity();
    const dir = await scratchDir('bench-bare-payment');
    const file = async (name: string, text: string): Promise<string> => {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    };
    const bank = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const tppKey = createPrivateKey(identity.pem.signingKey).export({ format: 'jwk' });
    const job = await file(
      'job.json',
      JSON.stringify({
        cert: await file('server.pem', identity.pem.serverCert),
        key: await file('server.key', identity.pem.serverKey),
        clientCa: [await file('root.pem', identity.pem.rootCa), await file('issuing.pem', identity.pem.issuingCa)],
        body: await file('answer.json', '{"Data":{"ConsentId":"pdc-1"}}'),
        contentType: 'application/json',
        tppKey: { kty: 'RSA', n: tppKey.n, e: tppKey.e },
        bankKey: bank.privateKey.export({ format: 'jwk' }),
        bankKid: 'bank',
        iss: 'bank',
      }),
    );
    const server = spawn(process.execPath, [join(BENCH, 'payment-bare-server.js'), job], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const port = await new Promise<number>((done) =>
        server.stdout.once('data', (chunk: Buffer) => done((JSON.parse(String(chunk)) as { port: number }).port)),
      );
      const dispatcher = new Agent({
        connect: { cert: identity.pem.transportCert, key: identity.pem.transportKey, ca: [identity.pem.rootCa, identity.pem.issuingCa] },
      });
      const post = sign.signedPost({ token: 't', financialId: 'f', signingKey: tppKey, kid: 'k', iss: 'o/s', tan: 'openbanking.org.uk' });
      const url = `https://127.0.0.1:${port}/domestic-payment-consents`;
      const good = await request(url, { method: 'POST', dispatcher, headers: post.headers, body: post.body });
      const answer = await good.body.text();
      expect(good.statusCode).toBe(201);
      const [header = '', , signature = ''] = String(good.headers['x-jws-signature']).split('.');
      const signed = Buffer.from(`${header}.${Buffer.from(answer).toString('base64url')}`);
      const pss = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
      expect(verify('sha256', signed, { key: bank.publicKey, ...pss }, Buffer.from(signature, 'base64url'))).toBe(true);

      const changed = await request(url, { method: 'POST', dispatcher, headers: post.headers, body: post.body.replace('10.00', '99.00') });
      await changed.body.dump();
      expect(changed.statusCode).toBe(400);
      await dispatcher.close();
    } finally {
      server.kill('SIGTERM');
    }
  }, 60_000);
});
