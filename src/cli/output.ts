// Terminal output of the CLI: human lines (colour only on a TTY), `--json` machine output, `--quiet`, and the one
// place that formats an error as `error: CODE message` + `hint: …`.

export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
  /** Where a person's answers come from (manual consent); absent in tests that need none. */
  stdin?: NodeJS.ReadableStream;
}

export interface Output {
  readonly json: boolean;
  readonly quiet: boolean;
  /** A progress or result line for people (suppressed by --quiet and --json). */
  line(text: string): void;
  /** A check line: ok / problem. */
  check(ok: boolean, text: string, hint?: string): void;
  /** The command's machine result (printed as one JSON line with --json). */
  result(value: unknown): void;
  warn(text: string): void;
  error(code: string, message: string, hint?: string): void;
  bold(text: string): string;
}

export function createOutput(io: CliIo, options: { json: boolean; quiet: boolean }): Output {
  // Colour only on a terminal, decided per stream, and never when NO_COLOR or TERM=dumb says no.
  const allowed = io.env.NO_COLOR === undefined && io.env.TERM !== 'dumb';
  const painter = (tty: boolean | undefined) => (code: number, text: string) =>
    allowed && tty === true ? `\u001b[${code}m${text}\u001b[0m` : text;
  const paint = painter(io.stdout.isTTY);
  const paintError = painter(io.stderr.isTTY);
  const human = !options.json && !options.quiet;
  return {
    json: options.json,
    quiet: options.quiet,
    line(text) {
      if (human) io.stdout.write(`${text}\n`);
    },
    check(ok, text, hint) {
      if (options.json) return;
      if (ok && options.quiet) return;
      io.stdout.write(`${ok ? paint(32, 'ok     ') : paint(31, 'problem')} ${text}\n`);
      if (!ok && hint) io.stdout.write(`        hint: ${hint}\n`);
    },
    result(value) {
      if (options.json) io.stdout.write(`${JSON.stringify(value)}\n`);
    },
    warn(text) {
      if (!options.quiet) io.stderr.write(`${paintError(33, 'warning:')} ${text}\n`);
    },
    error(code, message, hint) {
      // With --json the error is one JSON line too (on stderr, so stdout stays the command's result).
      if (options.json) {
        io.stderr.write(`${JSON.stringify({ error: { code, message, ...(hint ? { hint } : {}) } })}\n`);
        return;
      }
      io.stderr.write(`${paintError(31, 'error:')} ${code} ${message}\n`);
      if (hint) io.stderr.write(`hint: ${hint}\n`);
    },
    bold(text) {
      return paint(1, text);
    },
  };
}
