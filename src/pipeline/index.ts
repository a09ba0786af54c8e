// The core entry of the command line: everything a command handler calls, in one module. The CLI loads it lazily,
// once (src/cli/context.ts), so `obflow --help` pays for none of it; below it imports are static, except newman,
// playwright-core and the emulator (src/sandbox/), which load only when a run, a browser or a sandbox starts, and the
// packages a start with everything in place never needs: the identity issuer (@peculiar/x509), the PFX reader
// (node-forge), the generator (postman-collection, handlebars), the report renderer (test/unit/architecture.test.ts).

import type * as MergeFilesModule from '../report/merge-files.js';
import type * as WorkspaceModule from './workspace.js';

export { configOverrides, type ConfigOverrides, type Overrides } from '../config/overrides.js';
export { loadConfig } from '../config/load.js';
export { configJsonSchema } from '../config/schema.js';
export { writeFileAtomic } from '../fs.js';
export { runDoctorChecks } from '../pki/doctor.js';
export { MANIFEST_FILE } from '../pki/manifest.js';
export { assertNoRunningSandbox, removeSandboxAddresses, writeSandboxAddresses } from '../state/addresses.js';
export { embeddedFapi, fapiContradiction, startEmbeddedSandbox } from '../state/embedded-sandbox.js';
export { ensureLocalIdentity, issueLocalIdentity, localIdentityDir, resolveIdentity } from '../state/identity.js';
export { stateLayout } from '../state/layout.js';
export { protectStateDir } from '../state/protect.js';
export { openSession, type Session } from './session.js';
export { legVersions, runLegsStage, type Leg } from './legs.js';
export { collectionsDirOf, generateStage, parForGeneration, savedDiscoveryRequiresPar } from './generate.js';
export { discoveryDoctorCheck } from './doctor-discovery.js';
export { vrpDoctorNotes } from './doctor-vrp.js';
export { externalRegistrationStage, manageRegistrationStage, registerStage, storedRegistration } from './register.js';
export {
  environmentSecretsHeld,
  environmentStage,
  environmentStem,
  postmanCertificates,
  readEnvironmentFile,
  readVersionEnvironment,
  saveEnvironment,
  versionEnvironmentStem,
} from './environment.js';
export { htmlReportPath, reportsDir, runStage } from './run.js';
export { SANDBOX_TEST_USERS } from './target.js';
export { createLiveLine } from '../run/subscribers/live-line.js';

/** `obflow workspace`: its module (the generator, handlebars) loads only for that command. */
export async function makeWorkspace(
  ...args: Parameters<typeof WorkspaceModule.makeWorkspace>
): ReturnType<typeof WorkspaceModule.makeWorkspace> {
  return (await import('./workspace.js')).makeWorkspace(...args);
}

/** `obflow report merge`: the merge (its reader, the merged page's renderer) loads only for that command. */
export async function mergeRunReports(
  ...args: Parameters<typeof MergeFilesModule.mergeRunReports>
): ReturnType<typeof MergeFilesModule.mergeRunReports> {
  return (await import('../report/merge-files.js')).mergeRunReports(...args);
}
