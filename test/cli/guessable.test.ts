// Config and CLI a person can guess, through the built CLI in its own process: "did you mean" for a
// config key in the other spelling, an OBFLOW_ variable, a command and a flag; a broken JSON config named by line and
// column; help examples whose commands are never split across lines.

import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STEP_NAMES } from '../../src/generate/flow.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

let cwd = '';
beforeAll(async () => {
  cwd = await tempDir('obflow-guess-');
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});
const firstLine = (text: string): string => text.split('\n')[0] ?? '';

describe('did you mean', () => {
  it('a config key in the other spelling (flow.response_type → flow.responseType)', async () => {
    await writeFile(
      join(cwd, 'spelt.json'),
      '{ "target": "sandbox", "flow": { "response_type": "code" }, "sandbox": { "profil": "strict-headless" } }\n',
    );
    const result = await runCliProcess(['doctor', '--config', 'spelt.json'], { cwd });
    expect(result.code).toBe(2);
    expect(firstLine(result.stderr)).toMatch(
      /ERR_CONFIG_INVALID \S+spelt\.json: 2 problems: unknown key sandbox\.profil \(did you mean sandbox\.profile\?\); unknown key flow\.response_type \(did you mean flow\.responseType\?\)$/,
    );
  });

  it('an OBFLOW_ variable, a command and a flag', async () => {
    const variable = await runCliProcess(['doctor'], { cwd, env: { OBFLOW_STATE_DIRS: 'x' } });
    expect(firstLine(variable.stderr)).toBe(
      'error: ERR_CONFIG_INVALID environment: unknown variable OBFLOW_STATE_DIRS (did you mean OBFLOW_STATE_DIR?)',
    );
    const command = await runCliProcess(['regster'], { cwd });
    expect([command.code, firstLine(command.stderr)]).toEqual([2, 'error: ERR_USAGE unknown command "regster" (did you mean "register"?)']);
    const flag = await runCliProcess(['register', '--client_id', 'x'], { cwd });
    expect([flag.code, firstLine(flag.stderr)]).toEqual([2, 'error: ERR_USAGE Unknown argument: client_id (did you mean --client-id?)']);
    const far = await runCliProcess(['doctor', '--xyzzy'], { cwd });
    expect(firstLine(far.stderr)).toBe('error: ERR_USAGE Unknown argument: xyzzy');
  });
});

it.each([
  ['truncated', '{\n  "target": "sandbox",\n  "flow": {', '3:12'],
  ['a missing comma', '{\n  "target": "sandbox"\n  "flow": {}\n}\n', '3:3'],
])('a JSON config that is %s is named by line and column', async (name, text, place) => {
  const file = `${name.replaceAll(' ', '-')}.json`;
  await writeFile(join(cwd, file), text);
  const result = await runCliProcess(['doctor', '--config', file], { cwd });
  expect(result.code).toBe(2);
  expect(firstLine(result.stderr)).toMatch(new RegExp(`^error: ERR_CONFIG_INVALID \\S+${file}:${place} is not valid JSON \\(.+\\)$`));
});

it('help examples keep each command on one line, at any width', async () => {
  const commands = [
    '',
    'init',
    'doctor',
    'sandbox',
    'register',
    'environment',
    'generate',
    'run',
    'workspace',
    'report merge',
    'demo',
    'config-schema',
  ];
  const columns = process.stdout.columns;
  try {
    for (const width of [60, 80, 110]) {
      Object.defineProperty(process.stdout, 'columns', { value: width, configurable: true });
      for (const command of commands) {
        const help = await runCli([...command.split(' ').filter(Boolean), '--help'], { cwd });
        const examples = help.stdout.slice(help.stdout.indexOf('Examples:'));
        expect(examples.length, command).toBeGreaterThan(10);
        // Each example: a `#` description line, then the whole command on a line of its own.
        const lines = examples
          .split('\n')
          .slice(1)
          .map((line) => line.trim())
          .filter(Boolean);
        const commandLines = lines.filter((line) => line.startsWith('obflow ') || /^[A-Z_]+=/.test(line));
        expect(commandLines.length, `${command} at ${width}`).toBeGreaterThan(0);
        for (const line of commandLines) expect(line, `${command} at ${width}`).toMatch(/^(?:[A-Z_]+=\S+ )?obflow /);
        expect(lines.filter((line) => line.startsWith('#')).length, `${command} at ${width}`).toBe(commandLines.length);
      }
    }
  } finally {
    Object.defineProperty(process.stdout, 'columns', { value: columns, configurable: true });
  }
});

it('run --help lists every step a single run can take, in order', async () => {
  const help = await runCliProcess(['run', '--help'], { cwd });
  expect(help.code).toBe(0);
  const text = help.stdout.replace(/\s+/g, ' ');
  expect(text).toContain(`all, or one step, in the order they run: ${STEP_NAMES.join(', ')}`);
});
