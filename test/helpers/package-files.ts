// Which files of a package a module loads, seen from a child process (a fresh module cache, apart from the test
// worker's shared one): the child runs `body` (ES module code; what it assigns to `value` comes back), then lists the
// files of `pkg` in require's cache as paths inside the package. For the start's lazy and narrowed loads
// (lazy-undici, undici-core, config-zod).
import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';

export function packageFilesAfter(pkg: string, body: readonly string[]): { files: string[]; value: unknown } {
  const inPackage = new RegExp(`[\\\\/]node_modules[\\\\/]${pkg}[\\\\/]`);
  const script = [
    'let value;',
    ...body,
    "const { createRequire } = await import('node:module');",
    'const cache = createRequire(import.meta.url).cache;',
    `const inPackage = new RegExp(${JSON.stringify(inPackage.source)});`,
    `const files = Object.keys(cache).filter((file) => inPackage.test(file)).map((file) => file.replace(/\\\\/g, '/').split(${JSON.stringify(`/node_modules/${pkg}/`)})[1]);`,
    'console.log(JSON.stringify({ files, value }));',
  ].join('\n');
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  return JSON.parse(child.stdout) as { files: string[]; value: unknown };
}
