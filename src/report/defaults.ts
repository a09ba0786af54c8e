// The defaults of `obflow report merge`'s flags. Dependency-free: the command modules load at `--help` time, before the
// merge itself (src/report/merge.ts re-exports them).

/** Slower by more than half of the previous time and by more than 500 ms (src/report/merge.ts parseSlowerThreshold). */
export const DEFAULT_SLOWER_THRESHOLD = '50%,500ms';
