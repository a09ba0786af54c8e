// `obflow report merge` in its own process over the legs a CI matrix leaves (docs/ci.md "One page for every leg"): a
// v3.1 and a v4.0 leg of one bank, profile and consent mode (told apart on the page by their labels), a leg whose bank
// died mid-run (a request with no answer reads so, never as an answer; its hint, whose side and what to do, beside it),
// and a leg that wrote no report and whose command's error carries HTML (escaped in the Markdown a CI system renders).

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { JsonReport } from '../../src/run/reporters/json.js';
import { transportHint } from '../../src/run/verdict.js';
import { runCliProcess, type CliResult } from '../helpers/cli.js';
import { tempDirSync } from '../helpers/temp.js';

const work = tempDirSync('obflow-merge-legs-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

const at = (second: number): string => new Date(Date.UTC(2026, 10, 26, 2, 0, second)).toISOString();

type Step = [name: string, status: 'passed' | 'failed' | 'skipped', failure?: string];

function report(target: NonNullable<JsonReport['target']>, steps: readonly Step[], failure?: JsonReport['failure']): JsonReport {
  return {
    version: 1,
    startedAt: at(0),
    finishedAt: at(steps.length),
    target,
    origins: ['https://127.0.0.1:8443'],
    passed: failure === undefined,
    ...(failure !== undefined ? { failedStep: failure.step, failure } : {}),
    steps: steps.map(([name, status, message], index) => ({
      name,
      kind: 'collection',
      status,
      ...(status === 'skipped' ? { skipReason: 'the bank issued no refresh token' } : { passed: status === 'passed' }),
      startedAt: at(index),
      finishedAt: at(index + 1),
      requests:
        status === 'skipped'
          ? []
          : [
              {
                item: `${name}: GET`,
                method: 'GET',
                url: `https://127.0.0.1:8443/${name}`,
                at: at(index + 1),
                ...(message !== undefined
                  ? { failure: { kind: 'unreachable' as const, item: `${name}: GET`, origin: 'https://127.0.0.1:8443', message } }
                  : { status: 200 }),
                assertions: message !== undefined ? [] : [{ name: 'status is 200', status: 'passed' as const }],
              },
            ],
      preRequestAssertions: [],
      scriptErrors: [],
    })),
  };
}

function leg(name: string, files: { report?: JsonReport; status?: object }): void {
  const dir = join(work, 'legs', name);
  mkdirSync(dir, { recursive: true });
  if (files.report !== undefined) writeFileSync(join(dir, 'obflow-run.json'), `${JSON.stringify(files.report, null, 2)}\n`);
  if (files.status !== undefined) writeFileSync(join(dir, 'obflow-leg.json'), `${JSON.stringify(files.status)}\n`);
}

const sandbox = { name: 'sandbox', profile: 'strict-headless', consent: 'headless', families: ['accounts'], fapi: '1-advanced' };
const DIED = 'connect ECONNREFUSED 127.0.0.1:8443';
const DIED_HINT = transportHint('unreachable');
const SCRIPT_ERROR = 'ERR_USAGE --client-id is empty <script>alert(1)</script>';
const SECRET_HINT = 'Set the secret TPP_CLIENT_ID_OTHERBANK_STRICT_HEADLESS (docs/ci.md "Secrets").';

let merged: CliResult;
let page: string;
let markdown: string;

beforeAll(async () => {
  const flow: Step[] = [
    ['discovery', 'passed'],
    ['accounts', 'passed'],
    ['refresh', 'skipped'],
  ];
  leg('sandbox-v3.1', { report: report({ ...sandbox, apiVersion: '3.1' }, flow) });
  leg('sandbox-v4.0', { report: report({ ...sandbox, apiVersion: '4.0' }, flow) });
  leg('examplebank', {
    report: report(
      { ...sandbox, name: 'examplebank', apiVersion: '3.1' },
      [
        ['discovery', 'passed'],
        ['transactions', 'failed', DIED],
      ],
      {
        step: 'transactions',
        sentence: 'The run stopped at step transactions: the bank at https://127.0.0.1:8443 did not answer, so nothing was checked there.',
        hint: DIED_HINT,
      },
    ),
  });
  leg('otherbank', {
    status: {
      bank: 'otherbank',
      profile: 'strict-headless',
      consent: 'headless',
      exit: 2,
      stage: 'register',
      error: SCRIPT_ERROR,
      hint: SECRET_HINT,
    },
  });
  merged = await runCliProcess(['report', 'merge', 'legs', '--out', 'merged'], { cwd: work });
  page = readFileSync(join(work, 'merged', 'index.html'), 'utf8');
  markdown = readFileSync(join(work, 'merged', 'obflow-merged.md'), 'utf8');
}, 60_000);

/** The grid's row headers as a person reads them (tags dropped). */
const rowLabels = (html: string): string[] =>
  [...html.matchAll(/<th class="leg" scope="row">([\s\S]*?)<\/th>/g)].map((match) =>
    (match[1] ?? '')
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );

describe('obflow report merge (its own process)', () => {
  it('ends with ERR_LEGS_FAILED after writing every file', () => {
    expect(merged.code, merged.stderr).toBe(1);
    expect(merged.stderr).toMatch(/^error: ERR_LEGS_FAILED 2 of 4 legs failed/);
  });

  it('labels each leg with everything that tells it apart: the API and version, the FAPI profile', () => {
    const labels = rowLabels(page);
    expect(labels).toHaveLength(4);
    const sandboxRows = labels.filter((label) => label.startsWith('sandbox / strict-headless / headless'));
    expect(sandboxRows).toHaveLength(2);
    expect(new Set(sandboxRows).size).toBe(2);
    expect(sandboxRows.find((label) => label.includes('· AIS v3.1 ·'))).toMatch(/· FAPI 1-advanced passed report$/);
    expect(sandboxRows.find((label) => label.includes('· AIS v4.0 ·'))).toMatch(/· FAPI 1-advanced passed report$/);
    expect(markdown).toContain('| sandbox / strict-headless / headless · AIS v4.0 · FAPI 1-advanced |');
  });

  it('a request that got no answer reads "no answer", never as if the bank answered', () => {
    expect(page).toContain('<span class="check">no answer to GET</span>');
    expect(page).toContain(DIED);
    expect(`${page}\n${markdown}`).not.toContain('got an answer');
    expect(markdown).toContain(`transactions: no answer to GET — ${DIED}`);
  });

  it("carries each failed leg's hint beside its error: whose side, what to do", () => {
    // Handlebars writes the hint's backticks as entities.
    expect(page).toContain(`<p class="hint"><b>What to do:</b> ${DIED_HINT.replace(/`/g, '&#x60;')}</p>`);
    expect(page).toContain(
      '<p class="hint"><b>What to do:</b> Set the secret TPP_CLIENT_ID_OTHERBANK_STRICT_HEADLESS (docs/ci.md &quot;Secrets&quot;).</p>',
    );
    expect(markdown).toContain('### What to do');
    expect(markdown).toContain(`what to do: ${DIED_HINT.replace(/[`*_[\]|~]/g, '\\$&')}`);
    expect(markdown).toContain('what to do: Set the secret TPP\\_CLIENT\\_ID\\_OTHERBANK\\_STRICT\\_HEADLESS');
  });

  it("escapes a leg's error for the Markdown a CI system renders (HTML there is live)", () => {
    expect(markdown).not.toContain('<script>');
    expect(markdown).toContain('--client-id is empty &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('marks a skipped step – with its reason, apart from passed and not reached', () => {
    const cells = [...page.matchAll(/<td class="cell skipped" data-step="refresh" title="([^"]*)">(?:<a [^>]*>)?([^<]*)(?:<\/a>)?<\/td>/g)];
    expect(cells.map((cell) => cell[2])).toEqual(['–', '–']);
    expect(cells[0]?.[1]).toMatch(/: refresh skipped: the bank issued no refresh token \(1 s\)$/);
    expect(markdown).toMatch(/\| sandbox \/ strict-headless \/ headless · AIS v3\.1 · FAPI 1-advanced \| ✅ \| ✅ \| ⏭️ \|/);
  });
});
