// The project's checks before the tests: the type check (tsc), eslint and prettier, run side by side. Each is one
// process that keeps about one core busy for ~15 s; one after the other they held the second core idle for ~45 s of
// every `npm test` on a 2-core machine (docs/notes.md, "CI time"). Each one's output is printed whole, in this order,
// once it ends; the exit code is the first failure's (0 when all pass). This table is the checks' one home:
// `npm test` runs them all, `npm run typecheck` and `npm run lint` run theirs by name.
//
//   node tools/check.js [typecheck] [eslint] [prettier]     (none named: every check)

import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);

const CHECKS = [
  { name: 'typecheck', command: bin('tsc'), args: ['-p', 'tsconfig.json'] },
  { name: 'eslint', command: bin('eslint'), args: ['.'] },
  { name: 'prettier', command: bin('prettier'), args: ['--check', '.'] },
];

/** The checks named, in the table's order (every one when none is named); undefined when a name is not a check. */
export function checksNamed(names, checks = CHECKS) {
  if (names.some((name) => !checks.some((check) => check.name === name))) return undefined;
  return names.length === 0 ? checks : checks.filter((check) => names.includes(check.name));
}

function run({ name, command, args }) {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => done({ name, code: 1, output: `${name}: ${error.message}\n` }));
    child.on('close', (code) => done({ name, code: code ?? 1, output: Buffer.concat(output).toString('utf8') }));
  });
}

/** Runs `checks` side by side, writes each one's output whole in the checks' order, and returns the exit code: the
 *  first failing check's, 0 when every one passed. */
export async function runChecks(checks = CHECKS, write = (text) => process.stdout.write(text)) {
  const results = await Promise.all(checks.map(run));
  for (const { name, code, output } of results) {
    write(`> ${name}${code === 0 ? '' : ` (exit ${code})`}\n${output}${output === '' || output.endsWith('\n') ? '' : '\n'}`);
  }
  return results.find((result) => result.code !== 0)?.code ?? 0;
}

if (process.argv[1] === import.meta.filename) {
  const names = process.argv.slice(2);
  const checks = checksNamed(names);
  if (checks === undefined) {
    process.stderr.write(
      `tools/check.js: ${names.join(' ')} names no check. Hint: name one of ${CHECKS.map((check) => check.name).join(', ')}, or none for every check.\n`,
    );
    process.exitCode = 2;
  } else process.exitCode = await runChecks(checks);
}
