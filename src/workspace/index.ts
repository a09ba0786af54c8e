// `obflow workspace`'s one place that reads the state: the registration, the saved environment, the target and the
// certificate material of a session (so moving the state folder's layout touches only this file), then an optional
// run for the report, then build (pure) and write (whole or not at all).

import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DEFAULT_TEMPLATES_DIR } from '../generate/templates.js';
import type { Session } from '../pipeline/stages.js';
import type { RunResult } from '../run/result.js';
import { buildWorkspace, COPIED_FILES, type WorkspaceFile } from './build.js';
import { writeWorkspace } from './write.js';

export interface WorkspaceOptions {
  out: string;
  zip?: string;
  includeSecrets: boolean;
  force: boolean;
  /** Run the flow first and put its HTML report in reports/ (default true). */
  run: boolean;
  now: Date;
}

export interface WorkspaceOutcome {
  dir?: string;
  zip?: string;
  files: readonly WorkspaceFile[];
  /** The run that made the report (its failure is reported after the workspace is written). */
  run?: RunResult;
}

function workspaceTemplates(): { guide: string; copied: Record<string, string> } {
  const dir = join(DEFAULT_TEMPLATES_DIR, 'workspace');
  return {
    guide: readFileSync(join(dir, 'index.html.hbs'), 'utf8'),
    copied: Object.fromEntries(COPIED_FILES.map((name) => [name, readFileSync(join(dir, name), 'utf8')])),
  };
}

export async function makeWorkspace(session: Session, options: WorkspaceOptions): Promise<WorkspaceOutcome> {
  const stages = await import('../pipeline/stages.js');
  const generate = await import('../generate/index.js');
  const { registrationPath } = await import('../registration/store.js');
  const { obflowVersion } = await import('../report/html.js');
  // Missing registration → ERR_NOT_REGISTERED, missing environment → ERR_FILE_MISSING: before anything is written.
  const registration = await stages.storedRegistration(session);
  const environment = await stages.readEnvironmentFile(session.config, session.target);
  const collections = generate.buildCollections({ templates: generate.loadTemplates() });
  let run: RunResult | undefined;
  let reportHtml: string | undefined;
  if (options.run) {
    const byName = new Map(collections.map((file) => [file.fileName, file.json]));
    const stepCollections = Object.fromEntries(generate.STEP_NAMES.flatMap((name) => {
      const json = byName.get(generate.stepFileName(name));
      return json === undefined ? [] : [[name, JSON.parse(json) as object]];
    }));
    // Its own reports folder: the run must not replace a report.html that `obflow run` wrote.
    const reports = join(session.config.stateDir, 'run', 'workspace-report');
    const reporting: Session = { ...session, config: { ...session.config, output: { ...session.config.output, reports } } };
    run = await stages.runStage(reporting, { environment, collections: stepCollections, reporters: ['html'], progress: () => undefined });
    const { HTML_REPORT_FILE } = await import('../report/subscriber.js');
    reportHtml = readFileSync(join(reports, HTML_REPORT_FILE), 'utf8');
  }
  const { sandboxPsuUser } = await import('../pipeline/target.js');
  const files = buildWorkspace({
    target: session.target,
    environment,
    collections,
    flowCollection: generate.FLOW_FILE_NAME,
    transport: { certPem: session.transport.certPem, chainPem: session.transport.chainPem, keyPem: session.transport.keyPem },
    serverCaPem: session.target.serverCaPem,
    includeSecrets: options.includeSecrets,
    ...(session.target.name === 'sandbox' ? { psu: sandboxPsuUser(session.config) } : {}),
    clientId: registration.client_id,
    registrationFile: relative(process.cwd(), registrationPath(session.config.stateDir, { softwareId: registration.software_id, target: registration.target, profile: registration.profile })) || '.',
    ...(reportHtml !== undefined ? { reportHtml } : {}),
    obflowVersion: obflowVersion(),
    builtAt: options.now.toISOString(),
    templates: workspaceTemplates(),
  });
  const written = await writeWorkspace(files, { dir: options.out, ...(options.zip !== undefined ? { zipPath: options.zip } : {}), secret: options.includeSecrets, force: options.force });
  return { ...written, files, ...(run !== undefined ? { run } : {}) };
}
