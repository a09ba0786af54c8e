// The state folder's layout, in one place: every path obflow keeps under `stateDir`
// (docs/pipeline.md#the-session-and-the-state-folder). Nothing outside src/state/ joins a state path
// (test/unit/architecture.test.ts keeps it so).

import { join } from 'node:path';

/** Which stored registration: one file per software id + target + profile (docs/bank-interface.md §5.2). */
export interface RegistrationKey {
  softwareId: string;
  /** The config's target name (`sandbox` for the embedded emulator, or the real bank's name). */
  target: string;
  /** The sandbox client profile (its {auth_url}); a real bank's `sandbox`/`production`. */
  profile: string;
}

/** The files a run writes for newman into the run folder (mode 0600). */
export type RunFile = 'target-ca.pem' | 'ssl-client-cert-list.json';

export interface StateLayout {
  root: string;
  /** `*`: keeps the folder (keys, client secrets, tokens) out of any repository. */
  gitignore: string;
  /** The local test identity `obflow init` issues (its manifest is identity.json). */
  identity: string;
  registrations: string;
  registration(key: RegistrationKey): string;
  environments: string;
  environment(stem: string): string;
  /** newman's working folder: certificate list, CA bundle (a legacy PFX's PEM copy lives in a temporary folder, src/pipeline/transport-copy.ts). */
  run: string;
  runFile(name: RunFile): string;
  /** JUnit reports unless `output.reports` names another folder. */
  reports: string;
  /** The data folder of `obflow sandbox` (clients, consents, tokens) unless --data-dir names another. */
  sandbox: string;
  /** Where the running `obflow sandbox` announces its addresses and pid. */
  sandboxAddresses: string;
  /** The demo's own registrations, environment and run files: `npm start` never replaces a step-by-step session's. */
  demo: string;
  /** The collections the demo generates and runs: never `output.collections` (in a clone, the tracked `collections/`). */
  demoCollections: string;
  /** The ID-token signing key the embedded emulator keeps between starts on a fresh data folder (the demo's; 0600). */
  embeddedIdTokenKey: string;
  /** `obflow workspace`'s default folder for a target (environment stem). */
  workspace(stem: string): string;
  /** The report of the run that makes a workspace: its own folder, so it never replaces `obflow run`'s report.html. */
  workspaceReport: string;
  /** What the last discovery read of the target requires (flow.par "auto" in the offline generate). */
  discoveryRecord: string;
}

/** File names keep to a portable set: anything else becomes `_`. */
const safe = (value: string): string => value.replace(/[^A-Za-z0-9._-]/g, '_');

export function stateLayout(stateDir: string): StateLayout {
  const registrations = join(stateDir, 'registrations');
  const environments = join(stateDir, 'environments');
  const run = join(stateDir, 'run');
  const sandbox = join(stateDir, 'sandbox');
  return {
    root: stateDir,
    gitignore: join(stateDir, '.gitignore'),
    identity: join(stateDir, 'identity'),
    registrations,
    registration: (key) => join(registrations, `${safe(key.softwareId)}--${safe(key.target)}--${safe(key.profile)}.json`),
    environments,
    environment: (stem) => join(environments, `${safe(stem)}.postman_environment.json`),
    run,
    runFile: (name) => join(run, name),
    reports: join(stateDir, 'reports'),
    sandbox,
    sandboxAddresses: join(sandbox, 'addresses.json'),
    demo: join(stateDir, 'demo'),
    demoCollections: join(stateDir, 'demo', 'collections'),
    embeddedIdTokenKey: join(stateDir, 'demo', 'sandbox-id-token-key.json'),
    workspace: (stem) => join(stateDir, 'workspace', safe(stem)),
    workspaceReport: join(run, 'workspace-report'),
    discoveryRecord: join(stateDir, 'discovery-requirements.json'),
  };
}
