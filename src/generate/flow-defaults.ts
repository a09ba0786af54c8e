// Defaults of the flow that the config's schema and the collections' variable contract share: a module that imports
// nothing, so the schema reads it without loading the contract (src/generate/variables.ts).

/** The page guard per account of the transactions loop: the config's `flow.maxPages` default, the contract's
 *  `max_pages` default, and the transactions script's fallback (test/unit/defaults.test.ts ties the three). */
export const DEFAULT_MAX_PAGES = 200;
