// `obflow run --apis vrp --api-version 3.1,4.0` as the CLI composes it (src/pipeline/legs.ts), against the real
// emulator over mutual TLS on port 0: the same mandate walked on both versions comes out the same (each limit's payments
// made and refused, the amounts; v4.0's codes read as v3.1's names), in the verdict and on the later leg's page.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { parseConfig } from '../../src/config/load.js';
import { environmentStage } from '../../src/pipeline/environment.js';
import { runLegsStage } from '../../src/pipeline/legs.js';
import { registerStage } from '../../src/pipeline/register.js';
import { openTargetSession } from '../../src/pipeline/session.js';
import { sandboxTarget } from '../../src/pipeline/target.js';
import { useTestSandbox } from '../helpers/sandbox-client.js';
import { tempDir } from '../helpers/temp.js';
import { COLLECTIONS_DIR } from './pipeline-helpers.js';

const sandbox = useTestSandbox({ apis: ['accounts', 'vrp'], seed: 'vrp-versions' });

describe('the VRP mandate walked on v3.1 and v4.0', () => {
  it('both legs pass and the comparison finds the walk the same on both; the v4.0 page shows it', async () => {
    const work = await tempDir('obflow-vrp-versions-');
    const config = parseConfig(
      {
        stateDir: join(work, 'state'),
        output: { collections: COLLECTIONS_DIR, reports: join(work, 'reports') },
        sandbox: { profile: 'strict-headless' },
        flow: { apis: ['vrp'] },
      },
      'test',
    );
    const target = sandboxTarget(config, sandbox.urls, [sandbox.identity.pem.rootCa, sandbox.identity.pem.issuingCa]);
    const session = await openTargetSession(config, target, sandbox.identity.paths);
    try {
      const registered = await registerStage(session, { force: true });
      if (registered.kind === 'dry-run') throw new TypeError('not a dry run');
      await environmentStage(session, registered.registration);
      const verdict = await runLegsStage(session, { versions: ['3.1', '4.0'], run: { reporters: ['junit', 'html'] } });
      expect(verdict.error?.message, verdict.failureLines.join('\n')).toBeUndefined();
      expect(verdict.passed).toBe(true);
      const [comparison, ...more] = verdict.outcomeComparisons ?? [];
      expect(more).toEqual([]);
      expect(comparison?.family).toBe('vrp');
      expect(comparison?.differences).toEqual([]);
      const rows = Object.fromEntries((comparison?.rows ?? []).map((row) => [row.field, row]));
      // The walk did something on both: payments made, refusals at the limits, with each version's code.
      expect(rows['payments made']?.v31).toMatch(/^[1-9]\d*, /);
      expect(rows['refused at a limit']?.v31).not.toBe('0');
      expect(rows['refusal ErrorCode']).toMatchObject({ v31: 'UK.OBIE.Rules.FailsControlParameters', v40: 'U014', verdict: 'explained' });
      const page = readFileSync(join(work, 'reports', 'v4.0', 'report.html'), 'utf8');
      expect(page).toContain('<h2>VRP mandate v3.1 beside v4.0</h2>');
      expect(page).not.toContain('not explained by the code mapping');
    } finally {
      await session.close();
    }
  }, 180_000);
});
