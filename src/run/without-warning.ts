// One Node.js warning code silenced while a dependency loads (newman's DEP0176, src/run/newman-adapter.ts): others
// pass through, and the real process.emitWarning is back once the load settles.

/** Runs `load` with Node.js warnings of one code dropped (others pass through), for as long as it takes. */
export async function withoutWarning<T>(code: string, load: () => Promise<T>): Promise<T> {
  const emitWarning = process.emitWarning;
  const filtered = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]): void {
    const [typeOrOptions, codeArgument] = rest;
    const warningCode =
      typeof typeOrOptions === 'object' && typeOrOptions !== null ? (typeOrOptions as { code?: unknown }).code : codeArgument;
    if (warningCode === code) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  };
  process.emitWarning = filtered as typeof process.emitWarning;
  try {
    return await load();
  } finally {
    if (process.emitWarning === filtered) process.emitWarning = emitWarning;
  }
}
