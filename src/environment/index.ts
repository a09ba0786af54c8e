// The environment step's public surface: download (edge) and merge (pure).
export * from './download.js';
export * from './merge.js';
export * from './obflow.js';
