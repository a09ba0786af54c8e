// One session per leg of a run over several API versions (`run`/`demo --api-version 3.1,4.0`, src/pipeline/legs.ts):
// the same registration, identity and environment, the version's collections and a reports folder of its own, so the
// legs' reports sit side by side (<reports>/v3.1, <reports>/v4.0: the version row's reportsFolder) and `obflow report
// merge` names each leg by its report.

import { join } from 'node:path';

import { API_VERSION_ROWS, type ApiVersion } from '../generate/api-versions.js';
import type { Session } from './session.js';

/** What sets a run's legs apart, so each leg's reports get a folder of their own. */
export interface LegAxes {
  versions: boolean;
  families: boolean;
}

/** A leg's reports folder under the run's: the version's sub-folder when the run has several versions, the family's
 *  before it when it covers several families; the run's folder itself for a run of one leg. */
export function legReportsDir(root: string, leg: { version: ApiVersion; family: { name: string } }, several: LegAxes): string {
  const family = several.families ? [leg.family.name] : [];
  return join(root, ...family, ...(several.versions ? [API_VERSION_ROWS[leg.version].reportsFolder] : []));
}

/** The session of one leg: flow.apiVersion set to its version, its reports in its own folder. */
export function versionSession(session: Session, version: ApiVersion, reports: string): Session {
  return {
    ...session,
    config: { ...session.config, flow: { ...session.config.flow, apiVersion: version }, output: { ...session.config.output, reports } },
  };
}
