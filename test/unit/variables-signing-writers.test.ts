// The writers of the message-signing state (src/generate/variables.ts): a run of one step names the step that must run
// first from them (src/pipeline/run-checks.ts stepPrerequisites), so every step whose collection sets the bank's keys or
// the signature counts is listed, in every family whose row signs messages (VRP's as much as payments').

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_FAMILIES } from '../../src/api-families.js';
import { ENVIRONMENT_VARIABLES } from '../../src/generate/variables.js';
import { REPO_ROOT } from '../helpers/prerequisites.js';

interface CollectionNode {
  item?: CollectionNode[];
  event?: { script?: { exec?: string[] } }[];
}

/** The script text of every event of a collection (the golden files under collections/, one per step). */
function scriptsOf(node: CollectionNode): string[] {
  return [
    ...(node.event ?? []).map((event) => (event.script?.exec ?? []).join('\n')),
    ...(node.item ?? []).flatMap((child) => scriptsOf(child)),
  ];
}

/** The steps of the signing families whose collection sets `key` in the environment. */
function stepsSetting(key: string): string[] {
  const writes = new RegExp(`\\.set\\(\\s*'${key}'`);
  return Object.values(API_FAMILIES)
    .filter((family) => family.signsMessages)
    .flatMap((family) =>
      family.steps.filter((step) => {
        const file = join(REPO_ROOT, 'collections', family.folder, `${step}.postman_collection.json`);
        const collection = JSON.parse(readFileSync(file, 'utf8')) as CollectionNode;
        return scriptsOf(collection).some((script) => writes.test(script));
      }),
    );
}

const writersOf = (key: string) => ENVIRONMENT_VARIABLES.find((variable) => variable.key === key)?.writtenBy ?? [];

describe('the writers of the message-signing state follow the signing families', () => {
  for (const key of ['bank_signing_jwks', 'signatures_checked']) {
    it(`${key}: every step that sets it, of every family that signs`, () => {
      const setters = stepsSetting(key);
      expect(setters).toContain('vrp-consent');
      expect([...writersOf(key)].sort()).toEqual([...setters].sort());
    });
  }
});
