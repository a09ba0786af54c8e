// zod, for the config schema and the merged page's reports: its CommonJS build, not its ES module. On Node.js 20
// obflow's code cache covers CommonJS only (src/cli/cjs-code-cache.ts), so zod's ES module (95 files) is compiled
// from source by every start — ~60 ms of `npm start` — where the CommonJS build runs from the cache (~35 ms; issue 34,
// item 2). One zod for the whole process: every module takes it from here (two copies would not know each other's
// schemas). Its types are the package's own (`import type { z } from 'zod'`).

import { createRequire } from 'node:module';
import type * as Zod from 'zod';

export const { z } = createRequire(import.meta.url)('zod') as typeof Zod;
