// Whether an error opening the store is the native module failing to load, not the data: better-sqlite3's addon
// built for another Node.js (Node.js's ERR_DLOPEN_FAILED naming NODE_MODULE_VERSION), for another platform (an ELF
// it cannot load), or never built (the `bindings` package finds no .node file). The data file is fine then, and
// repairing or removing it (ERR_SANDBOX_DATA's hint) would be the wrong advice: the module is rebuilt with `npm rebuild`.

/** A native module that cannot be loaded by this Node.js: which one, and why, in one line. */
export interface NativeModuleFailure {
  /** The npm package (from the addon's path under node_modules/, else the one the caller loads). */
  module: string;
  problem: string;
}

/** Node.js majors by NODE_MODULE_VERSION (process.versions.modules; node/doc/abi_version_registry.json). */
const NODE_BY_ABI: Readonly<Record<string, string>> = { '108': '18', '115': '20', '127': '22', '137': '24', '147': '26' };

const nodeOf = (abi: string): string => (NODE_BY_ABI[abi] === undefined ? `NODE_MODULE_VERSION ${abi}` : `Node.js ${NODE_BY_ABI[abi]}`);

/** The module's package name from an addon path in `message` (the last node_modules/<name>/ segment). */
function moduleIn(message: string): string | undefined {
  const names = [...message.matchAll(/node_modules[\\/]((?:@[^\\/\s'"]+[\\/])?[^\\/\s'"]+)[\\/]/g)].map((match) => match[1] ?? '');
  return names.at(-1)?.replace(/\\/g, '/');
}

/**
 * The native-module failure `error` is, or undefined when it is something else (a damaged file, a SQLite error).
 * `module` names the package the caller was loading, for messages that carry no path. `runtime` is this Node.js
 * (process.version, process.versions.modules) — a parameter so the classifier stays pure.
 */
export function nativeModuleFailure(
  error: unknown,
  module: string,
  runtime: { version: string; modules: string } = { version: process.version, modules: process.versions.modules },
): NativeModuleFailure | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as NodeJS.ErrnoException).code;
  const message = error.message;
  const name = moduleIn(message) ?? module;
  const built = /NODE_MODULE_VERSION (\d+)\.[\s\S]*?requires\s+NODE_MODULE_VERSION (\d+)/.exec(message);
  if (built) {
    const [, was, needed] = built as unknown as [string, string, string];
    return {
      module: name,
      problem: `it was built for ${nodeOf(was)} (NODE_MODULE_VERSION ${was}); this is Node.js ${runtime.version} (NODE_MODULE_VERSION ${needed})`,
    };
  }
  if (code === 'ERR_DLOPEN_FAILED') {
    const line = message.split('\n')[0]?.trim() ?? '';
    return { module: name, problem: `Node.js ${runtime.version} cannot load its compiled addon: ${line}` };
  }
  if (message.startsWith('Could not locate the bindings file')) {
    return { module, problem: `its compiled addon was never built for Node.js ${runtime.version} (no .node file)` };
  }
  return undefined;
}
