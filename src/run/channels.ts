// Diagnostics channels obflow's core publishes (node:diagnostics_channel: free when nobody subscribes). The command
// line's shell subscribes where it decides something for the whole process (src/cli/heap.ts). Kept apart from what
// publishes them, so that subscribing loads nothing else.

/** newman's first run in this process has started (src/run/newman-adapter.ts, newman's `start`): the modules of a run
 *  are in, and newman has made the run's script sandbox (it does before `start`, compiling postman-sandbox's boot code:
 *  src/cli/sandbox-code-cache.ts); what follows is the run's own work. Published once per process. */
export const NEWMAN_STARTED = 'obflow:newman:started';
