// Flags → exact overrides: each command's flags, parsed by the real yargs root and command modules, become one typed
// Overrides object (src/cli/flags.ts) — nothing more, nothing renamed — and the run's environment takes exactly the
// flow inputs those flags gave (src/pipeline/run-plan.ts givenFlowInputs).

import { PassThrough } from 'node:stream';
import type { CommandModule } from 'yargs';
import { describe, expect, it } from 'vitest';

import { commandModules } from '../../src/cli/commands/index.js';
import type { CommandState } from '../../src/cli/context.js';
import { commandOverrides } from '../../src/cli/flags.js';
import { cliParser } from '../../src/cli/main.js';
import { createOutput } from '../../src/cli/output.js';
import { configSchema } from '../../src/config/schema.js';
import { configOverrides, type Overrides } from '../../src/config/overrides.js';
import { isObflowError } from '../../src/errors.js';
import { INPUT_VARIABLES } from '../../src/generate/variables.js';
import { flowInputs, givenFlowInputs } from '../../src/pipeline/run-plan.js';
import type { Target } from '../../src/pipeline/target.js';

/** Parses argv with the CLI's own parser; each command's handler is replaced by one that records its overrides. */
async function overridesOf(argv: string[]): Promise<Overrides> {
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), env: {}, cwd: '/work' };
  const state: CommandState = { io, output: createOutput(io, { json: false, quiet: true }) };
  const seen: Overrides[] = [];
  const modules = commandModules(state).map((module): CommandModule => ({
    ...module,
    handler: (args) => void seen.push(commandOverrides(args)),
  }));
  await cliParser(argv, modules).parseAsync();
  expect(seen).toHaveLength(1);
  return seen[0] as Overrides;
}

describe('flags → overrides', () => {
  const cases: [string, Overrides][] = [
    ['run --psu-user sam --consent manual', { flow: { psuUser: 'sam', consent: 'manual' } }],
    ['run all --no-skips --verbose', { flow: { allowSkips: false } }],
    [
      'run accounts --max-pages 5 --insecure --out-reports r --state-dir s',
      { stateDir: 's', flow: { maxPages: 5 }, output: { reports: 'r' }, insecure: true },
    ],
    [
      'run all --response-type code --profile permissive-headless --out-collections c',
      { sandbox: { profile: 'permissive-headless' }, flow: { responseType: 'code' }, output: { collections: 'c' } },
    ],
    ['demo --profile permissive-interactive --psu-user jo', { sandbox: { profile: 'permissive-interactive' }, flow: { psuUser: 'jo' } }],
    [
      'demo --fapi 2.0 --token-auth-method tls_client_auth --sandbox-fapi 2.0',
      { flow: { fapi: '2.0' }, bank: { token_endpoint_auth_method: 'tls_client_auth' }, sandbox: { fapi: '2.0' } },
    ],
    [
      'sandbox --resource-port 8443 --auth-port 9443 --seed s1 --data-dir d --verbose',
      { sandbox: { resourcePort: 8443, authPort: 9443, seed: 's1' } },
    ],
    ['register --dry-run --force', {}],
    ['generate --out-collections out --json', { output: { collections: 'out' } }],
    ['environment --config obflow.config.json --response-type code', { flow: { responseType: 'code' } }],
    ['generate --api-version 4.0', { apiVersions: ['4.0'] }],
    ['run --api-version 3.1', { apiVersions: ['3.1'] }],
    ['demo --api-version 3.1,4.0', { apiVersions: ['3.1', '4.0'] }],
    ['workspace --api-version 4.0 --no-run', { apiVersions: ['4.0'] }],
    ['sandbox --api-versions 3.1', { sandbox: { apiVersions: ['3.1'] } }],
    ['sandbox --api-versions 4.0,3.1,4.0', { sandbox: { apiVersions: ['4.0', '3.1'] } }],
  ];
  it.each(cases)('%s', async (line, expected) => {
    expect(await overridesOf(line.split(' '))).toStrictEqual(expected);
  });

  it('an unknown API version is ERR_USAGE whose hint lists the versions', async () => {
    for (const argv of [
      ['run', '--api-version', '5'],
      ['generate', '--api-version', ''],
      ['sandbox', '--api-versions', '3.1,3.2'],
    ]) {
      const error = await overridesOf(argv).catch((caught: unknown) => caught);
      expect(isObflowError(error) && error.code, argv.join(' ')).toBe('ERR_USAGE');
      expect(isObflowError(error) && error.hint, argv.join(' ')).toContain('3.1 and 4.0');
    }
  });

  it('one --api-version is flow.apiVersion for the config; several are for run and demo only', async () => {
    expect(configOverrides({ apiVersions: ['4.0'] })).toStrictEqual({ flow: { apiVersion: '4.0' } });
    expect(configOverrides({ apiVersions: ['3.1', '4.0'] })).toStrictEqual({});
  });

  it('a path flag without a value is ERR_USAGE, not "no config" or "this folder"', async () => {
    for (const argv of [
      ['run', '--config', ''],
      ['run', '--state-dir', ''],
      ['sandbox', '--data-dir', ''],
    ]) {
      const error = await overridesOf(argv).catch((caught: unknown) => caught);
      expect(isObflowError(error) && error.code).toBe('ERR_USAGE');
    }
  });
});

describe('the flow inputs a run takes from its flags', () => {
  const target = { consent: 'manual' } as Target;
  const config = (flow: Record<string, unknown>) => configSchema.parse({ flow });

  it('run --psu-user sam --consent manual sets exactly psu_login_hint and consent_mode', () => {
    const overrides: Overrides = { flow: { psuUser: 'sam', consent: 'manual' } };
    expect(givenFlowInputs({ config: config(overrides.flow ?? {}), target, overrides })).toStrictEqual({
      consent_mode: 'interactive',
      psu_login_hint: 'sam',
    });
  });

  it("the flow inputs are variables.ts's input rows, each with its flow key: one table", () => {
    const session = { config: config({ psuUser: 'jo', maxPages: 7 }), target, overrides: {} };
    expect(Object.keys(flowInputs(session))).toEqual(['response_type', 'consent_mode', 'psu_login_hint', 'max_pages']);
    expect(INPUT_VARIABLES.filter((variable) => variable.flow !== undefined).map((variable) => variable.key)).toEqual(
      Object.keys(flowInputs(session)),
    );
    // The other inputs come from the registration, filled by src/pipeline/client-values.ts, not by flags.
    expect(INPUT_VARIABLES.filter((variable) => variable.flow === undefined).map((variable) => variable.key)).toEqual([
      'token_endpoint_auth_method',
      'request_object_signing_alg',
      'signing_kid',
      'signing_key',
    ]);
    expect(flowInputs(session)).toStrictEqual({
      response_type: 'code id_token',
      consent_mode: 'interactive',
      psu_login_hint: 'jo',
      max_pages: '7',
    });
  });

  it('values from the config file alone leave the saved environment alone', () => {
    expect(givenFlowInputs({ config: config({ psuUser: 'jo', maxPages: 7 }), target, overrides: {} })).toStrictEqual({});
    expect(
      givenFlowInputs({
        config: config({ maxPages: 7, responseType: 'code' }),
        target,
        overrides: { flow: { maxPages: 7, responseType: 'code' } },
      }),
    ).toStrictEqual({
      max_pages: '7',
      response_type: 'code',
    });
  });
});
