// The shape of src/ that no type checker sees: no import cycle between modules nor between folders, and no module outside src/state/
// builds a path in the state folder (src/state/layout.ts names every one; docs/pipeline.md#the-session-and-the-state-folder).

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import { stateLayout } from '../../src/state/layout.js';
import { REPO_ROOT } from '../helpers/prerequisites.js';

const SRC = join(REPO_ROOT, 'src');
const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ path: `src/${file.split('\\').join('/')}`, text: readFileSync(join(SRC, file), 'utf8') }));

/** Relative imports of a module, static and dynamic, type-only included (a cycle of types is still a knot). */
function importsOf(path: string, text: string): string[] {
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^'";]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gm),
    ...text.matchAll(/^\s*import\s+'(\.{1,2}\/[^']+)'/gm),
    ...text.matchAll(/\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g),
  ].map((match) => match[1] ?? '');
  return specifiers.map((specifier) =>
    relative(REPO_ROOT, resolve(REPO_ROOT, dirname(path), specifier))
      .split('\\')
      .join('/')
      .replace(/\.js$/, '.ts'),
  );
}

/** Every cycle's first closing path found by a depth-first walk (Tarjan would name each once; one is enough to fail). */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/** The room of a module: its folder right under src/ (`src/run/` for src/run/reporters/html.ts); a module at the top of
 *  src/ (src/fs.ts) is a room of its own. */
function folderOf(path: string): string {
  const parts = path.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : path;
}

/** The folders' graph: an arrow from one folder to another for every import between their modules. */
function folderGraph(graph: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [path, targets] of graph) {
    const from = folderOf(path);
    const arrows = folders.get(from) ?? new Set<string>();
    for (const target of targets) if (folderOf(target) !== from) arrows.add(folderOf(target));
    folders.set(from, arrows);
  }
  return new Map([...folders].map(([folder, arrows]) => [folder, [...arrows].sort()]));
}

/** The imports behind one folder arrow, to name in a failure. */
function importsBetween(graph: ReadonlyMap<string, readonly string[]>, from: string, to: string): string[] {
  return [...graph].flatMap(([path, targets]) =>
    folderOf(path) === from ? targets.filter((target) => folderOf(target) === to).map((target) => `${path} → ${target}`) : [],
  );
}

describe('the import graph of src/', () => {
  const graph = new Map(files.map(({ path, text }) => [path, importsOf(path, text)]));

  it('has the command line as its outermost room: nothing outside src/cli/ imports it', () => {
    const inward = [...graph].flatMap(([path, targets]) =>
      path.startsWith('src/cli/') ? [] : targets.filter((target) => target.startsWith('src/cli/')).map((target) => `${path} → ${target}`),
    );
    expect(inward).toEqual([]);
  });

  it('resolves every relative import to a module of src/', () => {
    const known = new Set(graph.keys());
    const dangling = [...graph].flatMap(([path, targets]) =>
      targets.filter((target) => !known.has(target)).map((target) => `${path} → ${target}`),
    );
    expect(dangling).toEqual([]);
    expect(graph.size).toBeGreaterThan(100);
  });

  it('has no cycle', () => {
    expect(cyclesOf(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('has no cycle between folders: no folder imports a folder that imports it back', () => {
    const cycles = cyclesOf(folderGraph(graph)).map((cycle) =>
      cycle
        .slice(1)
        .map((to, index) => importsBetween(graph, cycle[index] ?? '', to)[0] ?? `${cycle[index]} → ${to}`)
        .join(', '),
    );
    expect(cycles).toEqual([]);
  });

  it('finds a folder cycle when there is one, through modules that form no cycle (the check can fail)', () => {
    // The shape of the two arrows back up once found in src/: the reporters' table imported a reporter from src/report/, which
    // imported src/run/ (no module cycle, a folder cycle).
    const knot = new Map([
      ['src/run/reporters/index.ts', ['src/report/subscriber.ts']],
      ['src/report/subscriber.ts', ['src/run/events.ts', 'src/fs.ts']],
      ['src/run/events.ts', []],
      ['src/fs.ts', []],
    ]);
    expect(cyclesOf(knot)).toEqual([]);
    expect(cyclesOf(folderGraph(knot))).toEqual([['src/report/', 'src/run/', 'src/report/']]);
    expect(importsBetween(knot, 'src/run/', 'src/report/')).toEqual(['src/run/reporters/index.ts → src/report/subscriber.ts']);
  });

  it('finds a cycle when there is one (the check can fail)', () => {
    const knot = new Map([
      ['src/a.ts', ['src/b.ts']],
      ['src/b.ts', ['src/c.ts']],
      ['src/c.ts', ['src/a.ts']],
      ['src/d.ts', ['src/a.ts']],
    ]);
    expect(cyclesOf(knot)).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/a.ts']]);
    expect(
      importsOf(
        'src/cli/x.ts',
        "import type { A } from '../state/layout.js';\nconst m = await import('./y.js');\nexport * from '../fs.js';\n",
      ),
    ).toEqual(['src/state/layout.ts', 'src/fs.ts', 'src/cli/y.ts']);
  });
});

/** The names src/state/layout.ts gives the state folder's entries, read from the layout itself: a new entry there is
 *  guarded here without editing this list. */
function layoutSegments(): string[] {
  const layout = stateLayout('/STATE');
  const paths = [
    ...Object.values(layout).filter((value): value is string => typeof value === 'string'),
    layout.registration({ softwareId: 's', target: 't', profile: 'p' }),
    layout.environment('e'),
    layout.workspace('e'),
    ...(['target-ca.pem', 'ssl-client-cert-list.json'] as const).map((name) => layout.runFile(name)),
  ];
  return [
    ...new Set(
      paths
        .flatMap((path) => path.slice('/STATE/'.length).split('/'))
        .filter((segment) => segment !== '' && !/^[stpe]$|--|\.postman_environment\.json$/.test(segment)),
    ),
  ].sort();
}

/** Each path-building call (`join(…)`, `resolve(…)`) with its arguments, balanced parentheses included. */
function pathCalls(text: string): string[] {
  const calls: string[] = [];
  for (const match of text.matchAll(/\b(?:join|resolve|joinPath)\(/g)) {
    let depth = 0;
    let end = match.index;
    for (; end < text.length; end += 1) {
      if (text[end] === '(') depth += 1;
      else if (text[end] === ')' && --depth === 0) break;
    }
    calls.push(text.slice(match.index, end + 1));
  }
  return calls;
}

/** Path-building calls outside src/state/ that are not state paths although they name a segment: the runner's own
 *  default report folder under whatever working folder it is given (the pipeline passes stateLayout().reports), and
 *  the workspace's templates (templates/workspace/, src/run/reporters/page.ts). */
const NOT_STATE_PATHS = new Set(["join(input.cwd, 'reports')", "join(templatesDir, 'workspace')"]);

function statePathBuilders(path: string, text: string, segments: readonly string[]): string[] {
  const named = new RegExp(`['"\`](?:${segments.map((segment) => segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})['"\`/]`);
  return pathCalls(text)
    .filter((call) => !NOT_STATE_PATHS.has(call))
    .filter((call) => /\bstateDir\b/.test(call) || named.test(call))
    .map((call) => `${path}: ${call}`);
}

describe('the runner', () => {
  it('keeps every file of src/run/ under 300 lines: a new reporter or step is a new file', () => {
    const long = files
      .filter(({ path }) => path.startsWith('src/run/'))
      .map(({ path, text }) => ({ path, lines: text.split('\n').length - 1 }))
      .filter(({ lines }) => lines > 300);
    expect(long).toEqual([]);
  });
});

describe('the emulator (src/sandbox/)', () => {
  /** What an emulator module imports from outside src/sandbox/: it must be nothing, so the bank shares nothing with the
   *  TPP side but the wire (docs/sandbox.md). */
  const outside = (path: string, text: string): string[] =>
    importsOf(path, text)
      .filter((target) => !target.startsWith('src/sandbox/'))
      .map((target) => `${path} → ${target}`);

  it('imports nothing outside src/sandbox/', () => {
    const sandbox = files.filter(({ path }) => path.startsWith('src/sandbox/'));
    expect(sandbox.map(({ path }) => path)).toContain('src/sandbox/index.ts');
    expect(sandbox.flatMap(({ path, text }) => outside(path, text))).toEqual([]);
  });

  it('catches an emulator module that imports the TPP side (the check can fail)', () => {
    const offender =
      "import { x } from '../../errors.js';\nimport { y } from '../policy.js';\nconst z = await import('../../run/index.js');";
    expect(outside('src/sandbox/auth/x.ts', offender)).toEqual([
      'src/sandbox/auth/x.ts → src/errors.ts',
      'src/sandbox/auth/x.ts → src/run/index.ts',
    ]);
  });
});

describe('client authentication (src/client-auth.ts)', () => {
  /** Where a module writes client_secret_basic as a default (`?? …`, `|| …`, `.default(…)`, `default: …`, `= …`, a
   *  one-method fallback list): only src/client-auth.ts may (DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD); the emulator keeps its
   *  own vocabulary (it shares nothing with the TPP side). */
  const DEFAULTED = /(?:\?\?|\|\||\.default\(|\bdefault:|(?<![=!<>])=(?!=))\s*\[?\s*'client_secret_basic'/;
  const restated = (path: string, text: string): string[] =>
    path === 'src/client-auth.ts' || path.startsWith('src/sandbox/')
      ? []
      : text
          .split('\n')
          .filter((line) => DEFAULTED.test(line))
          .map((line) => `${path}: ${line.trim()}`);

  it('has its default in one place', () => {
    expect(files.flatMap(({ path, text }) => restated(path, text))).toEqual([]);
  });

  // The collections' scripts cannot import: they render the default from the generator's params
  // ('{{js defaultAuthMethod}}', src/generate/steps/common.ts and discovery.ts). The one line left is OIDC Discovery
  // §3's own default for a provider that lists no methods — the standard's, not obflow's.
  const SCRIPTS = join(REPO_ROOT, 'templates', 'scripts');
  const STANDARD_DEFAULT =
    "templates/scripts/discovery.test.js: pm.expect(config.token_endpoint_auth_methods_supported || ['client_secret_basic']).to.include(authMethod);";
  it('is rendered into the collections’ scripts, not restated there', () => {
    const scripts = readdirSync(SCRIPTS)
      .filter((file) => file.endsWith('.js'))
      .flatMap((file) => restated(`templates/scripts/${file}`, readFileSync(join(SCRIPTS, file), 'utf8')));
    expect(scripts).toEqual([STANDARD_DEFAULT]);
  });

  it('catches a restated default (the check can fail)', () => {
    const offender = [
      "const method = input.tokenEndpointAuthMethod ?? 'client_secret_basic';",
      "const listed = supported ?? ['client_secret_basic'];",
      "  .default('client_secret_basic')",
      "  default: 'client_secret_basic',",
      "function f(method = 'client_secret_basic') {}",
      "if (method === 'client_secret_basic') return;",
    ].join('\n');
    expect(restated('src/registration/x.ts', offender)).toHaveLength(5);
    expect(restated('src/client-auth.ts', offender)).toEqual([]);
  });
});

describe('the working folder', () => {
  /** Where a module below the command line reads the process's working folder: the CLI reads it once (src/cli/main.ts)
   *  and passes it in. The runner's option pin (src/run/newman-adapter.ts) saves it to put it back after a chdir. */
  const ALLOWED = new Set(['src/run/newman-adapter.ts: const previousCwd = process.cwd();']);
  const readers = (path: string, text: string): string[] =>
    path.startsWith('src/cli/')
      ? []
      : text
          .split('\n')
          .filter((line) => /\bprocess\.cwd\(\)/.test(line))
          .map((line) => `${path}: ${line.trim()}`)
          .filter((found) => !ALLOWED.has(found));

  it('is read by the command line only: no process.cwd() below src/cli/', () => {
    expect(files.flatMap(({ path, text }) => readers(path, text))).toEqual([]);
  });

  it('catches a core module that reads process.cwd() (the check can fail)', () => {
    expect(readers('src/pipeline/x.ts', 'const here = relative(process.cwd(), path);')).toEqual([
      'src/pipeline/x.ts: const here = relative(process.cwd(), path);',
    ]);
    expect(readers('src/cli/x.ts', 'const here = relative(process.cwd(), path);')).toEqual([]);
  });
});

describe('the lines of src/', () => {
  /** Lines a reader has to scroll sideways for: a long message is written in parts (`…` + `…`). */
  const longLines = (path: string, text: string): string[] =>
    text.split('\n').flatMap((line, index) => (line.length > 200 ? [`${path}:${index + 1} (${line.length} characters)`] : []));

  it('are at most 200 characters long', () => {
    expect(files.flatMap(({ path, text }) => longLines(path, text))).toEqual([]);
  });

  it('catches a longer line (the check can fail)', () => {
    expect(longLines('src/x.ts', `const a = 1;\nconst b = '${'x'.repeat(200)}';`)).toEqual(['src/x.ts:2 (213 characters)']);
  });
});

describe('the state folder', () => {
  const segments = layoutSegments();

  it('has its layout in src/state/layout.ts', () => {
    expect(segments).toEqual([
      '.gitignore',
      'addresses.json',
      'collections',
      'demo',
      'discovery-requirements.json',
      'environments',
      'identity',
      'registrations',
      'reports',
      'run',
      'sandbox',
      'sandbox-id-token-key.json',
      'ssl-client-cert-list.json',
      'target-ca.pem',
      'workspace',
      'workspace-report',
    ]);
  });

  it('is built by src/state/ only (the emulator keeps its own data folder, src/sandbox/)', () => {
    const outside = files.filter(({ path }) => !path.startsWith('src/state/') && !path.startsWith('src/sandbox/'));
    expect(outside.flatMap(({ path, text }) => statePathBuilders(path, text, segments))).toEqual([]);
  });

  it('catches a module that joins a state path (the check can fail)', () => {
    const offender =
      "const dir = join(config.stateDir, 'registrations');\nconst f = resolve(root, 'run', 'target-ca.pem');\nconst ok = join(outDir, file.fileName);";
    expect(statePathBuilders('src/x.ts', offender, segments)).toEqual([
      "src/x.ts: join(config.stateDir, 'registrations')",
      "src/x.ts: resolve(root, 'run', 'target-ca.pem')",
    ]);
  });
});

describe('the oidc-provider test bank (test/oidc-bank)', () => {
  const BANK = join(REPO_ROOT, 'test', 'oidc-bank');
  const bankFiles = readdirSync(BANK)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ path: `test/oidc-bank/${file}`, text: readFileSync(join(BANK, file), 'utf8') }));
  /** What a bank module imports from src/: it must be nothing, so it shares no code with the emulator (src/sandbox/)
   *  nor with the TPP side it is there to test. */
  const intoSrc = (path: string, text: string): string[] =>
    importsOf(path, text)
      .filter((target) => target.startsWith('src/'))
      .map((target) => `${path} → ${target}`);

  it('imports nothing from src/ (so nothing from src/sandbox/)', () => {
    expect(bankFiles.map(({ path }) => path)).toContain('test/oidc-bank/index.ts');
    expect(bankFiles.flatMap(({ path, text }) => intoSrc(path, text))).toEqual([]);
  });

  it('catches a bank module that imports the emulator (the check can fail)', () => {
    const offender = "import { x } from '../../src/sandbox/policy.js';\nconst y = await import('../../src/sandbox/index.js');";
    expect(intoSrc('test/oidc-bank/x.ts', offender)).toEqual([
      'test/oidc-bank/x.ts → src/sandbox/policy.ts',
      'test/oidc-bank/x.ts → src/sandbox/index.ts',
    ]);
  });
});

/** What loading a module makes Node load: its static imports that are not `import type`/`export type` (with
 *  verbatimModuleSyntax `import { type A } from` still loads its module), followed through src/, dynamic import()
 *  excluded (that is how a module defers a load). Packages by name (`@scope/name`), node: built-ins left out. */
function loadedBy(entry: string, texts: ReadonlyMap<string, string>): { modules: string[]; packages: string[] } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const visit = (path: string): void => {
    if (modules.has(path)) return;
    modules.add(path);
    const text = texts.get(path) ?? '';
    const specifiers = [
      ...text.matchAll(/^\s*(?:import|export)\b(?!\s+type\b)[^'";]*?\bfrom\s+'([^']+)'/gm),
      ...text.matchAll(/^\s*import\s+'([^']+)'/gm),
      // A package required at the module's top level (a statement at column 0) loads with the module, as an import
      // does (src/config/zod.ts); one required inside a function is deferred, as a dynamic import() is.
      ...text.matchAll(/^(?:export\s+)?(?:const|let|var)\b[^;]*?\bcreateRequire\(import\.meta\.url\)\('([^']+)'\)/gm),
    ].map((match) => match[1] ?? '');
    for (const specifier of specifiers) {
      if (specifier.startsWith('node:')) continue;
      if (!specifier.startsWith('.')) {
        packages.add(
          specifier
            .split('/')
            .slice(0, specifier.startsWith('@') ? 2 : 1)
            .join('/'),
        );
        continue;
      }
      visit(
        relative(REPO_ROOT, resolve(REPO_ROOT, dirname(path), specifier))
          .split('\\')
          .join('/')
          .replace(/\.js$/, '.ts'),
      );
    }
  };
  visit(entry);
  return { modules: [...modules].sort(), packages: [...packages].sort() };
}

/** The modules outside src/cli/ that `obflow --help` may load: declarations the command modules' flags need (choices,
 *  defaults), the entry's own error, interrupt and file helpers, and the template cache the start names its folder to
 *  (src/run/reporters/template-cache.ts) — none imports a package. A constant a flag needs
 *  lives in a module like these, never in a schema or an implementation (as measured once: zod's 95 modules came in through
 *  one constant of src/config/schema.ts and made `--help` 0.28 s instead of 0.19 s of CPU). */
const HELP_PATH_MODULES = [
  'src/api-families.ts',
  'src/client-auth.ts',
  'src/config/profiles.ts',
  'src/config/suggest.ts',
  'src/errors.ts',
  'src/fapi-profile.ts',
  'src/flag-list.ts',
  'src/fs.ts',
  'src/generate/api-versions.ts',
  'src/interrupt.ts',
  'src/report/defaults.ts',
  'src/run/channels.ts',
  'src/run/reporters/names.ts',
  'src/run/reporters/template-cache.ts',
  'src/sandbox/auth/fapi.ts',
  'src/sandbox/contracts.ts',
];

/** Packages the core (src/pipeline/index.ts) loads only where they are used, with the reason: a demo or `obflow run`
 *  with the identity present and the collections current never loads them before newman does. */
const DEFERRED_PACKAGES = {
  '@peculiar/x509': 'issuing a local identity (src/pki/issue.ts, through state/identity.ts issueLocalIdentity)',
  'node-forge': 'opening a PFX (src/pki/load.ts openPfx)',
  'postman-collection': 'building collections (src/generate/collections.ts, after the generate stamp) and newman',
  handlebars: 'building collections or a workspace, rendering a report (templates/workspace/report.mjs)',
  newman: 'a run (src/run/newman-adapter.ts)',
  'playwright-core': 'browser consent (src/run/consent/browser.ts)',
  'better-sqlite3': 'the embedded emulator (src/state/embedded-sandbox.ts)',
  yaml: 'reading the OpenAPI files when building collections (src/generate/schemas.ts)',
  undici:
    "obflow's own first request to the bank (src/pki/undici-core.ts, for src/pki/tls.ts and src/bank/http.ts): a run leaves every request to newman",
} as const;

describe('what a start loads', () => {
  const texts = new Map(files.map(({ path, text }) => [path, text]));

  it('loads for `obflow --help` yargs, src/cli/ and the declarations its flags need, nothing else', () => {
    const loaded = loadedBy('src/cli/main.ts', texts);
    expect(loaded.packages).toEqual(['yargs']);
    expect(loaded.modules.filter((path) => !path.startsWith('src/cli/'))).toEqual(HELP_PATH_MODULES);
    expect(loaded.modules).toContain('src/cli/commands/sandbox.ts');
  });

  it('loads none of the deferred packages with the core: each loads where it is used', () => {
    const { packages } = loadedBy('src/pipeline/index.ts', texts);
    // What every command loads with the core (zod: the config schema; jose: the software statement's check).
    expect(packages).toEqual(['jose', 'zod']);
    expect(packages.filter((name) => name in DEFERRED_PACKAGES)).toEqual([]);
  });

  // jose's index re-exports its JWE side too (encryption, key management, deflate: ~20 modules more of ES module code,
  // which Node.js 20 compiles at every start); obflow signs and verifies only, through jose's subpath exports.
  const joseIndexImports = (sources: readonly { path: string; text: string }[]): string[] =>
    sources.flatMap(({ path, text }) => (/^\s*import\s+(?!type\b)[^;]*?\bfrom\s+'jose'/m.test(text) ? [path] : []));

  it("takes jose's functions from its subpaths, never its index (types only)", () => {
    expect(joseIndexImports(files)).toEqual([]);
  });

  it("catches a module that takes a function from jose's index (the check can fail)", () => {
    const sources = [
      { path: 'src/a.ts', text: "import type { JWK } from 'jose';\nimport { SignJWT } from 'jose/jwt/sign';" },
      { path: 'src/b.ts', text: "import { decodeJwt, type JWK } from 'jose';" },
    ];
    expect(joseIndexImports(sources)).toEqual(['src/b.ts']);
  });

  it('catches a command module that imports a schema for a constant (the check can fail)', () => {
    const knot = new Map([
      [
        'src/cli/main.ts',
        "import yargs from 'yargs';\nimport type { X } from '../config/load.js';\nimport { a } from './commands/sandbox.js';",
      ],
      [
        'src/cli/commands/sandbox.ts',
        "const m = await import('../../pipeline/index.js');\nimport {\n  type T,\n  B,\n} from '../../config/schema.js';",
      ],
      ['src/config/schema.ts', "import { z } from 'zod';\nexport type { Y } from '@peculiar/x509';\nexport { c } from '@scope/pkg/sub';"],
    ]);
    expect(loadedBy('src/cli/main.ts', knot)).toEqual({
      modules: ['src/cli/commands/sandbox.ts', 'src/cli/main.ts', 'src/config/schema.ts'],
      packages: ['@scope/pkg', 'yargs', 'zod'],
    });
  });

  it("counts a package required at a module's top level, not one required inside a function", () => {
    const required = new Map([
      [
        'src/config/zod.ts',
        "export const { z } = createRequire(import.meta.url)('zod') as typeof Zod;\nfunction later() {\n  const u = createRequire(import.meta.url)('undici');\n}",
      ],
    ]);
    expect(loadedBy('src/config/zod.ts', required).packages).toEqual(['zod']);
  });
});
