// Manual consent at the terminal: the consent URL is shown on stderr, the pasted line comes back; no input → none.

import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { pasteRedirect } from '../../src/cli/prompt.js';

function io(stdin?: PassThrough) {
  let shown = '';
  const stderr = new Writable({ write: (chunk, _encoding, done) => ((shown += String(chunk)), done()) });
  const stdout = new Writable({ write: (_chunk, _encoding, done) => done() });
  return { io: { stdout, stderr, env: {}, cwd: '/', ...(stdin ? { stdin } : {}) }, shown: () => shown };
}

describe('pasteRedirect', () => {
  it('shows the consent URL and the redirect URI, and returns the pasted line', async () => {
    const stdin = new PassThrough();
    const { io: cli, shown } = io(stdin);
    const answer = pasteRedirect(cli)('https://bank.example/authorize?x=1', 'https://tpp.example/cb');
    stdin.write('https://tpp.example/cb#code=c&state=s\n');
    expect(await answer).toBe('https://tpp.example/cb#code=c&state=s');
    expect(shown()).toContain('https://bank.example/authorize?x=1');
    expect(shown()).toContain('https://tpp.example/cb');
    // Piped input is not echoed: the prompt ends its own line, so a following `error:` line starts a line.
    expect(shown()).toMatch(/\n> \n$/);
  });

  it('resolves undefined when input ends without a line, or there is no input at all', async () => {
    const stdin = new PassThrough();
    const ended = io(stdin);
    const answer = pasteRedirect(ended.io)('https://bank.example/a', 'https://tpp.example/cb');
    stdin.end();
    expect(await answer).toBeUndefined();
    expect(ended.shown()).toMatch(/\n> \n$/);
    expect(await pasteRedirect(io().io)('https://bank.example/a', 'https://tpp.example/cb')).toBeUndefined();
  });
});
