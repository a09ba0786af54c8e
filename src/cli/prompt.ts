// Manual consent at the terminal: show the PSU's consent URL and read back the address the bank redirected the
// browser to. Prompts go to stderr, so stdout stays the command's result (--json).

import { createInterface } from 'node:readline';
import { onInterrupt } from '../interrupt.js';
import type { CliIo } from './output.js';

export function pasteRedirect(io: CliIo): (consentUrl: string, redirectUri: string) => Promise<string | undefined> {
  return async (consentUrl, redirectUri) => {
    const input = io.stdin;
    if (input === undefined) return undefined;
    io.stderr.write(
      `\nOpen this consent URL in a browser, log in as the PSU, choose the accounts and confirm:\n\n  ${consentUrl}\n\n` +
        `The bank then sends the browser to ${redirectUri} (that page may not load: that is fine).\n` +
        "Paste the whole address from the browser's address bar and press Enter:\n> ",
    );
    const lines = createInterface({ input, terminal: false });
    // Interrupted while waiting: end the prompt's line before the interrupt's own line.
    const disposeInterrupt = onInterrupt(() => void io.stderr.write('\n'));
    try {
      const answer = await new Promise<string | undefined>((resolve) => {
        lines.once('line', resolve);
        lines.once('close', () => resolve(undefined));
      });
      // A terminal echoes the pasted line and its Enter; piped input and end-of-input (Ctrl-D) echo nothing. End the
      // prompt's line ourselves then, so whatever follows (an `error:` line) starts a line of its own.
      if (answer === undefined || (input as { isTTY?: boolean }).isTTY !== true) io.stderr.write('\n');
      return answer;
    } finally {
      disposeInterrupt();
      lines.close();
    }
  };
}
