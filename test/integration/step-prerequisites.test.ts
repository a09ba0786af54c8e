// `obflow run <one step>` of a money family (payments, funds, VRP) whose consent id is empty in the saved environment:
// the run names the step to run first (ERR_STEP_PREREQUISITE) and sends nothing — the emulator, over real mutual TLS
// on port 0, logs no request after the environment was written. The writers are every family's state rows
// (src/generate/variables.ts writersOf), so a VRP payment without its mandate is ours to refuse, never the bank's.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import type { ApiFamilyName } from '../../src/api-families.js';
import { parseConfig } from '../../src/config/load.js';
import { withEnvironmentValues } from '../../src/environment/index.js';
import { environmentStage } from '../../src/pipeline/environment.js';
import { runLegsStage } from '../../src/pipeline/legs.js';
import { registerStage } from '../../src/pipeline/register.js';
import { openTargetSession } from '../../src/pipeline/session.js';
import { sandboxTarget } from '../../src/pipeline/target.js';
import type { ApiVersion } from '../../src/generate/api-versions.js';
import { useTestSandbox } from '../helpers/sandbox-client.js';
import { tempDir } from '../helpers/temp.js';
import { COLLECTIONS_DIR } from './pipeline-helpers.js';

const sandbox = useTestSandbox({ apis: ['accounts', 'payments', 'funds', 'vrp'], seed: 'step-prerequisites' });

/** One row per money family: the step run alone, the version it speaks, and the error it must get. The tokens are
 *  set and the family's consent state is empty, so the step is refused for the consent it lacks, not for a token. */
const CASES: { family: ApiFamilyName; version: ApiVersion; step: string; message: string; hint: string }[] = [
  {
    family: 'payments',
    version: '3.1',
    step: 'payment',
    message: 'step payment needs consent_id, payment_instruction_id, payment_end_to_end_id from payment-consent,',
    hint: 'Run the steps from `obflow run payment-consent` to `obflow run payment-funds-check` first, or `obflow run all`.',
  },
  {
    family: 'funds',
    version: '3.1',
    step: 'funds-confirmation',
    message: 'step funds-confirmation needs consent_id from funds-consent,',
    hint: 'Run the steps from `obflow run funds-consent` to `obflow run code-exchange` first, or `obflow run all`.',
  },
  {
    family: 'vrp',
    version: '3.1',
    step: 'vrp-payment',
    message: 'step vrp-payment needs consent_id from vrp-consent,',
    hint: 'Run the steps from `obflow run vrp-consent` to `obflow run vrp-funds-check` first, or `obflow run all`.',
  },
  {
    family: 'vrp',
    version: '4.0',
    step: 'vrp-mandate',
    message: 'step vrp-mandate needs consent_id from vrp-consent,',
    hint: 'Run the steps from `obflow run vrp-consent` to `obflow run vrp-payment-details` first, or `obflow run all`.',
  },
];

describe('a money step run alone without its consent is refused before anything is sent', () => {
  for (const { family, version, step, message, hint } of CASES) {
    it(`${family} v${version}: obflow run ${step} without its consent`, async () => {
      const work = await tempDir('obflow-step-prerequisites-');
      const config = parseConfig(
        {
          stateDir: join(work, 'state'),
          output: { collections: COLLECTIONS_DIR, reports: join(work, 'reports') },
          sandbox: { profile: 'strict-headless' },
          flow: { apis: [family], apiVersion: version },
        },
        'test',
      );
      const target = sandboxTarget(config, sandbox.urls, [sandbox.identity.pem.rootCa, sandbox.identity.pem.issuingCa]);
      const session = await openTargetSession(config, target, sandbox.identity.paths);
      try {
        const registered = await registerStage(session, { force: true });
        if (registered.kind === 'dry-run') throw new TypeError('not a dry run');
        const { environment } = await environmentStage(session, registered.registration);
        const stopped = withEnvironmentValues(environment, {
          client_credentials_token: 'an-earlier-token',
          access_token: 'an-earlier-token',
        });
        const mark = sandbox.log.length;
        const run = runLegsStage(session, { versions: [version], environment: stopped, run: { select: step, reporters: ['junit'] } });
        await expect(run).rejects.toMatchObject({ code: 'ERR_STEP_PREREQUISITE', hint });
        await expect(run).rejects.toThrow(message);
        // Nothing was sent: the emulator saw no request after the environment was written.
        expect(sandbox.log.slice(mark)).toEqual([]);
      } finally {
        await session.close();
      }
    }, 60_000);
  }
});
