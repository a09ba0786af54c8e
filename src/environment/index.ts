// The environment step's public surface: download (edge), merge (pure), reading a saved one back (checked shape).
export * from './download.js';
export * from './merge.js';
export * from './obflow.js';
export * from './saved.js';
