// The generator's file names: light on purpose (no SDK, no templates), so the run and the stamp check name the files
// without loading what builds them.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_FAMILIES, type ApiFamily } from '../api-families.js';

/** <repo>/templates, from src/generate/ (tests) and dist/generate/ (the built CLI) alike. */
export const DEFAULT_TEMPLATES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'templates');

export function stepFileName(step: string): string {
  return `${step}.postman_collection.json`;
}

export const FLOW_COLLECTION_NAME = API_FAMILIES.accounts.flowCollection;

export const FLOW_FILE_NAME = stepFileName(FLOW_COLLECTION_NAME);

/** The whole-flow collection's file of a family (`obflow-pis.postman_collection.json`). */
export function flowFileName(family: Pick<ApiFamily, 'flowCollection'>): string {
  return stepFileName(family.flowCollection);
}
