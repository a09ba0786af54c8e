// The secrets a workspace's run needs and does not hold (runner/workspace.json, `secrets`): asked for on the run's
// input before anything is installed, checked, and turned into what the flow reads (the Basic value, the signing JWK).
// They live in this process's memory for one run: never written to a file of the workspace, never in the environment
// of another process. Plain Node.js (no dependency): run.mjs calls it before `npm ci`.

import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { basicCredentials } from './rules.mjs';

/** A stop before the run: one `error:` line, one `hint:` line, exit 2. */
export class WorkspaceStop extends Error {
  constructor(message, hint) {
    super(message);
    this.hint = hint;
  }
}

/** Ctrl-C at a question: run.mjs ends with 130, as a shell does after SIGINT. */
export class WorkspaceInterrupted extends Error {}

/**
 * Questions on a terminal (the answer to a hidden one is not echoed) or lines of a pipe, in order. `ask` resolves to
 * the answer, or undefined when the input ended first.
 */
export function inputOf(stdin = process.stdin, stderr = process.stderr) {
  if (stdin.isTTY === true) {
    return {
      interactive: true,
      async ask(prompt, { hidden = false } = {}) {
        const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
        // The interface first: it puts the terminal in raw mode (no echo) before the question invites typing.
        const rl = createInterface({ input: stdin, output: hidden ? muted : stderr, terminal: true });
        if (hidden) stderr.write(prompt);
        const answer = await new Promise((done, fail) => {
          // A terminal in raw mode sends Ctrl-C to readline, not as a signal.
          rl.on('SIGINT', () => {
            stderr.write('\n');
            fail(new WorkspaceInterrupted());
            rl.close();
          });
          rl.once('line', done);
          rl.once('close', () => done(undefined));
          if (!hidden) rl.setPrompt(prompt);
          if (!hidden) rl.prompt();
        });
        rl.close();
        if (hidden) stderr.write('\n');
        return answer;
      },
      close() {},
    };
  }
  // A pipe: every line arrives at once, so one reader for all the questions (an interface per question would drop
  // the lines that came before it asked).
  const rl = createInterface({ input: stdin, terminal: false, crlfDelay: Infinity });
  const lines = rl[Symbol.asyncIterator]();
  return {
    interactive: false,
    async ask(prompt) {
      stderr.write(prompt);
      const next = await lines.next();
      stderr.write('\n');
      return next.done === true ? undefined : next.value;
    },
    close() {
      rl.close();
      stdin.pause?.();
    },
  };
}

/** A path as people type or drop it into a terminal: quotes, `\ ` escapes and `~/` taken off; relative to `cwd`. */
export function typedPath(text, cwd = process.cwd()) {
  let path = text.trim();
  if (/^(['"]).*\1$/.test(path)) path = path.slice(1, -1);
  else path = path.replace(/\\ /g, ' ');
  if (path === '~' || path.startsWith('~/')) path = `${homedir()}${path.slice(1)}`;
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** `a`, `a and b`, `a, b and c`. */
const listed = (items) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

function readKey(path, what) {
  let pem;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    return { problem: `cannot read ${path} (${error.code ?? error.message})` };
  }
  try {
    return { key: createPrivateKey(pem), pem };
  } catch {
    return { problem: `${path} is not ${what} (a PEM private key, "-----BEGIN PRIVATE KEY-----")` };
  }
}

/**
 * What the run needs and the workspace does not hold, asked for one by one. Returns the transport key's file and the
 * environment values to set (in memory); throws WorkspaceStop when an answer is missing or wrong on a pipe (a
 * terminal asks again, three times).
 * @param {{ manifest: any, environment: { values: { key: string, value: string }[] }, root: string, input: ReturnType<typeof inputOf>, log?: (line: string) => void }} options
 * @returns {Promise<{ keyFile: string, values: Record<string, string>, asked: string[] }>}
 */
export async function gatherSecrets({ manifest, environment, root, input, log = (line) => process.stderr.write(`${line}\n`) }) {
  const asks = manifest.secrets ?? {};
  const file = (relative) => resolve(root, ...relative.split('/'));
  const valueOf = (key) => environment.values.find((entry) => entry.key === key)?.value ?? '';
  const needed = [];
  const keyInFolder = file(manifest.certificates.key);
  if (!existsSync(keyInFolder)) needed.push('transportKey');
  if (asks.clientSecret !== undefined && asks.clientSecret.sets.some((key) => valueOf(key) === '')) needed.push('clientSecret');
  if (asks.signingKey !== undefined && asks.signingKey.sets.some((key) => valueOf(key) === '')) needed.push('signingKey');
  const result = { keyFile: keyInFolder, values: {}, asked: needed };
  if (needed.length === 0) return result;

  const names = {
    transportKey: 'the transport private key file',
    clientSecret: 'the client secret',
    signingKey: 'the signing key file',
  };
  log(`This workspace holds no secrets. The run needs ${listed(needed.map((name) => names[name]))}:`);
  log('typed here, used for this run only, never saved in this folder.');
  const certificate = new X509Certificate(readFileSync(file(manifest.certificates.cert)));
  const questions = {
    transportKey: {
      prompt: 'Transport private key (the key of certificates/transport.pem): path to the file: ',
      from: asks.transportKey?.from,
      check(answer) {
        const { key, problem } = readKey(typedPath(answer), 'a private key');
        if (problem !== undefined) return { problem };
        if (!certificate.checkPrivateKey(key)) return { problem: `${typedPath(answer)} is not the key of certificates/transport.pem` };
        result.keyFile = typedPath(answer);
        return {};
      },
    },
    clientSecret: {
      prompt: `Client secret of client ${asks.clientSecret?.clientId ?? ''}${input.interactive ? ' (not shown as you type)' : ''}: `,
      hidden: true,
      from: asks.clientSecret?.from,
      check(answer) {
        const secret = answer.trim();
        if (secret === '') return { problem: 'the client secret is empty' };
        // What the flow reads (docs/collections.md): the secret itself, and the Basic value of client_secret_basic.
        for (const key of asks.clientSecret.sets)
          result.values[key] = key === 'basicToken' ? basicCredentials(asks.clientSecret.clientId, secret) : secret;
        return {};
      },
    },
    signingKey: {
      prompt: 'Signing key (private_key_jwt, PS256 request objects): path to the file: ',
      from: asks.signingKey?.from,
      check(answer) {
        const { key, problem } = readKey(typedPath(answer), 'a private key');
        if (problem !== undefined) return { problem };
        // PS256 (RFC 7518 §3.5) needs an RSA key; the collections' signer reads it as a JWK.
        if (key.asymmetricKeyType !== 'rsa') return { problem: `${typedPath(answer)} is a ${key.asymmetricKeyType} key: PS256 needs RSA` };
        for (const name of asks.signingKey.sets) result.values[name] = JSON.stringify(key.export({ format: 'jwk' }));
        return {};
      },
    },
  };
  try {
    for (const name of needed) {
      const question = questions[name];
      if (question.from !== undefined) log(`  (${names[name]}: ${question.from})`);
      for (let attempt = 1; ; attempt += 1) {
        const answer = await input.ask(question.prompt, { hidden: question.hidden === true });
        if (answer === undefined || (answer.trim() === '' && !input.interactive)) {
          throw new WorkspaceStop(
            `the run needs ${listed(needed.map((one) => names[one]))}: ${names[name]} was not given`,
            'run.sh / run.cmd asks for them: start it in a terminal and answer its questions (or give them on its input, one line each, in that order).',
          );
        }
        const { problem } = answer.trim() === '' ? { problem: `${names[name]} is empty` } : question.check(answer);
        if (problem === undefined) break;
        if (!input.interactive || attempt === 3)
          throw new WorkspaceStop(
            problem,
            'Check the file or value (index.html, section "Secrets", says where each comes from) and run again.',
          );
        log(`  ${problem}: try again.`);
      }
    }
  } finally {
    input.close();
  }
  return result;
}
