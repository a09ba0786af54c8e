// One session per API version of a run over several (`run`/`demo --api-version 3.1,4.0`, issue 29): the same
// registration, identity and environment, the version's collections and a reports folder of its own, so the legs'
// reports sit side by side (<reports>/v3.1, <reports>/v4.0) and `obflow report merge` names each leg by its folder.

import { join } from 'node:path';

import type { ApiVersion } from '../generate/api-versions.js';
import type { Session } from './session.js';
import { reportsDir } from './run.js';

export function versionSession(session: Session, version: ApiVersion): Session {
  const reports = join(reportsDir(session.config), `v${version}`);
  return {
    ...session,
    config: { ...session.config, flow: { ...session.config.flow, apiVersion: version }, output: { ...session.config.output, reports } },
  };
}
