// Diagnostics channels obflow's core publishes (node:diagnostics_channel: free when nobody subscribes). The command
// line's shell subscribes where it decides something for the whole process (src/cli/heap.ts). Kept apart from what
// publishes them, so that subscribing loads nothing else.

/** newman is loaded (src/run/newman-load.ts): the modules of a run are in; what follows is the run's own work. */
export const NEWMAN_LOADED = 'obflow:newman:loaded';
