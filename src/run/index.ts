// The run step's public surface: certificates (list, preflight, coverage), the newman chain, the plan, the summary,
// and the browser consent driver with its scripts (imports playwright-core lazily).
export * from './certificates.js';
export * from './newman.js';
export * from './plan.js';
export * from './summary.js';
export * from './consent/browser.js';
export * from './consent/script.js';
