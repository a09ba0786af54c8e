// The state folder holds keys, client secrets and tokens: a `.gitignore` of `*` keeps it out of any repository.

import { existsSync } from 'node:fs';
import { writeFileAtomic } from '../fs.js';
import { stateLayout } from './layout.js';

export async function protectStateDir(stateDir: string): Promise<void> {
  const file = stateLayout(stateDir).gitignore;
  if (existsSync(file)) return;
  await writeFileAtomic(file, '# obflow state: keys, client secrets, tokens. Never commit it.\n*\n');
}
