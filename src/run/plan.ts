// The ordered steps of a run: the generator's step collections in flow order, with the browser consent inserted
// between `psu-consent` and `code-exchange` for interactive profiles (docs/bank-interface.md §5.3 steps 3–5), and the
// local checks that follow a step (the id_token verification).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ObflowError } from '../errors.js';
import type { RunStep } from './steps.js';

export interface RunPlanInput {
  /** Step names in flow order (generate/flow.ts STEP_NAMES). */
  stepNames: readonly string[];
  /** Collection JSON per step name. */
  collections: Readonly<Record<string, object>>;
  /** `all`, or one step name: runs that step alone (its inputs must already be in the environment). */
  select?: string;
  /** For interactive consent: the local step that writes auth_code (+ id_token), e.g. browserConsentStep(). */
  consentStep?: RunStep;
  /** The step after which the consent step runs. Default `psu-consent`. */
  consentAfter?: string;
  /** Local steps that run after a collection step (after the consent step, when that one has it too): e.g. the
   *  id_token verification after `psu-consent` and after `code-exchange` (src/run/id-token.ts). */
  localAfter?: readonly { after: string; step: RunStep }[];
}

export function buildRunPlan(input: RunPlanInput): RunStep[] {
  const select = input.select ?? 'all';
  const names = select === 'all' ? input.stepNames : input.stepNames.filter((name) => name === select);
  if (names.length === 0) {
    throw new ObflowError('ERR_STEP_UNKNOWN', `no step called "${select}"`, { hint: `Steps: all, ${input.stepNames.join(', ')}.` });
  }
  const after = input.consentAfter ?? 'psu-consent';
  const steps: RunStep[] = [];
  for (const name of names) {
    const collection = input.collections[name];
    if (collection === undefined) {
      throw new ObflowError('ERR_COLLECTION_INVALID', `no collection for step ${name}`, {
        hint: 'Run `obflow generate` to (re)create the collections.',
      });
    }
    steps.push({ name, collection });
    if (name === after && input.consentStep !== undefined) steps.push(input.consentStep);
    for (const local of input.localAfter ?? []) if (local.after === name) steps.push(local.step);
  }
  return steps;
}

/** Reads `<dir>/<step>.postman_collection.json` for every step name. */
export async function readStepCollections(dir: string, stepNames: readonly string[]): Promise<Record<string, object>> {
  const collections: Record<string, object> = {};
  for (const name of stepNames) {
    const path = join(dir, `${name}.postman_collection.json`);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (cause) {
      throw new ObflowError('ERR_FILE_MISSING', `collection ${path} not found`, {
        hint: 'Run `obflow generate` to create the collections.',
        cause,
      });
    }
    try {
      collections[name] = JSON.parse(text) as object;
    } catch (cause) {
      throw new ObflowError('ERR_COLLECTION_INVALID', `${path} is not JSON`, { hint: 'Regenerate it with `obflow generate`.', cause });
    }
  }
  return collections;
}
