// Public surface of the generator: what `obflow generate`, the runner and tests use.

export {
  buildCollections,
  writeCollections,
  stepFileName,
  DEFAULT_PERMISSIONS,
  FLOW_COLLECTION_NAME,
  FLOW_FILE_NAME,
} from './collections.js';
export type { BuildOptions, GenerateOptions, GeneratedFile } from './collections.js';
export { STEP_NAMES, buildFlow } from './flow.js';
export type { StepName } from './flow.js';
export { loadTemplates, DEFAULT_TEMPLATES_DIR } from './templates.js';
export type { Templates } from './templates.js';
export {
  ENVIRONMENT_VARIABLES,
  BANK_VARIABLES,
  INPUT_VARIABLES,
  STATE_VARIABLES,
  VARIABLE_KEYS,
  SECRET_VARIABLE_KEYS,
} from './variables.js';
export type { FlowInputKey, VariableSpec, VariableSource } from './variables.js';
export { DEFAULT_UNSUPPORTED_CALLS, UNSUPPORTED_STATUS } from './steps/unsupported.js';
export type { UnsupportedCall } from './model.js';
