// The run step's public surface: certificates (list, preflight, coverage), the runner and its events, the reporters,
// the plan, the summary, and the browser consent driver with its scripts (imports playwright-core lazily).
export * from './certificates.js';
export * from './events.js';
export { batchCollection } from './batch-collection.js';
export { environmentFromNewman } from './newman-adapter.js';
export { redactSecrets } from './redaction.js';
export * from './reporters/index.js';
export { buildJsonReport, JSON_REPORT_FILE, type JsonReport } from './reporters/json.js';
export * from './runner.js';
export * from './plan.js';
export * from './summary.js';
export * from './consent/browser.js';
export * from './consent/script.js';
