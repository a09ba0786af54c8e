// newman.run silently merges ~/.postman/newmanrc and ./.newmanrc into every run (docs/pipeline.md#newman-findings).
// Proved here with rc files that would point the run at a folder that does not exist; obflow pins cwd and HOME and is
// not affected.

import { mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import newman from 'newman';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildRunPlan, runSteps } from '../../src/run/index.js';
import { getTestIdentity } from '../helpers/identity.js';
import { useTestSandbox } from '../helpers/sandbox-client.js';
import { describeRun, prepare, type Prepared } from './pipeline-helpers.js';
import { tempDir } from '../helpers/temp.js';

let prepared: Prepared;
let hostile: string;
const original = { cwd: process.cwd(), home: process.env.HOME };

const sandbox = useTestSandbox();

beforeAll(async () => {
  prepared = await prepare(sandbox, await getTestIdentity(), 'strict-headless');
  hostile = await tempDir('obflow-rc-');
  const rc = `${JSON.stringify({ run: { folder: 'no-such-folder-from-an-rc-file' } })}\n`;
  await mkdir(join(hostile, '.postman'), { recursive: true });
  await writeFile(join(hostile, '.postman', 'newmanrc'), rc);
  await writeFile(join(hostile, '.newmanrc'), rc);
  process.env.HOME = hostile;
  process.chdir(hostile);
});
afterAll(async () => {
  process.chdir(original.cwd);
  if (original.home === undefined) delete process.env.HOME;
  else process.env.HOME = original.home;
  await prepared?.dispatcher.close();
  await rm(hostile, { recursive: true, force: true });
  if (prepared !== undefined) await rm(prepared.stateDir, { recursive: true, force: true });
});

describe('rc files', () => {
  it('plain newman.run picks them up from HOME and the process cwd', async () => {
    const outcome = await new Promise<{ error: Error | null; requests: number }>((resolve) => {
      newman.run(
        {
          collection: prepared.collections.discovery as never,
          environment: { values: prepared.environment.values } as never,
          reporters: [],
          sslClientCertList: prepared.certList,
          sslExtraCaCerts: prepared.caBundle,
        } as never,
        (error, summary) => resolve({ error, requests: summary?.run?.stats?.requests?.total ?? 0 }),
      );
    });
    expect(outcome.requests).toBe(0);
    expect(String(outcome.error)).toMatch(/no-such-folder-from-an-rc-file/);
  });

  it('obflow runs from its pinned folder and ignores them, then restores cwd and HOME', async () => {
    const result = await runSteps({
      steps: buildRunPlan({ stepNames: ['discovery', 'client-credentials'], collections: prepared.collections }),
      environment: prepared.environment,
      cwd: prepared.stateDir,
      sslClientCertList: prepared.certList,
      sslExtraCaCerts: prepared.caBundle,
      reporters: [],
    });
    expect(result.passed, describeRun(result)).toBe(true);
    expect(result.steps.map((step) => step.requests)).toEqual([1, 1]);
    expect(process.cwd()).toBe(await realpath(hostile));
    expect(process.env.HOME).toBe(hostile);
  });
});
