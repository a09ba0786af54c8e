// The light core: what commands that neither talk to a bank nor touch the identity need — the config and the
// generator (`obflow generate`, `obflow config-schema`). src/pipeline/index.ts is the whole core; the CLI loads either
// lazily (src/cli/context.ts), so `generate` does not pay for the PKI, registration and run modules.

export { configOverrides, type ConfigOverrides, type Overrides } from '../config/overrides.js';
export { loadConfig } from '../config/load.js';
export { configJsonSchema } from '../config/schema.js';
export { writeFileAtomic } from '../fs.js';
export { collectionsDirOf, generateStage, parForGeneration, savedDiscoveryRequiresPar } from './generate.js';
