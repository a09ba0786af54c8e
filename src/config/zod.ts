// zod, for the config schema and the merged page's reports: its CommonJS build, not its ES module (chosen when obflow
// cached only CommonJS code on Node.js 20; without that cache the two load in about the same time, docs/notes.md
// "the start without the loader patches"). One zod for the whole process: every module takes it from here (two
// copies would not know each other's schemas). Its types are the package's own (`import type { z } from 'zod'`).

import { createRequire } from 'node:module';
import type * as Zod from 'zod';

export const { z } = createRequire(import.meta.url)('zod') as typeof Zod;
