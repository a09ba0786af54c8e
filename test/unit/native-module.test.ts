// The classifier that tells a native module built for another runtime from damaged data (issue 24): the error shapes
// are the real ones, as Node.js 24.21 and `bindings` throw them when better-sqlite3 was built for Node.js 20.

import { describe, expect, it } from 'vitest';

import { nativeModuleFailure } from '../../src/sandbox/store/native.js';

const NODE_24 = { version: 'v24.21.0', modules: '137' };

function coded(message: string, code?: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

describe('nativeModuleFailure', () => {
  it('names the module and both runtimes when the addon was built for another Node.js (NODE_MODULE_VERSION)', () => {
    const error = coded(
      "The module '/srv/obflow/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\n" +
        'was compiled against a different Node.js version using\n' +
        'NODE_MODULE_VERSION 115. This version of Node.js requires\n' +
        'NODE_MODULE_VERSION 137. Please try re-compiling or re-installing\n' +
        'the module (for instance, using `npm rebuild` or `npm install`).',
      'ERR_DLOPEN_FAILED',
    );
    expect(nativeModuleFailure(error, 'better-sqlite3', NODE_24)).toEqual({
      module: 'better-sqlite3',
      problem: 'it was built for Node.js 20 (NODE_MODULE_VERSION 115); this is Node.js v24.21.0 (NODE_MODULE_VERSION 137)',
    });
  });

  it('takes the module from the addon path (scoped packages too), one line', () => {
    const error = coded('/app/node_modules/@scope/native-thing/build/Release/x.node: invalid ELF header', 'ERR_DLOPEN_FAILED');
    const failure = nativeModuleFailure(error, 'better-sqlite3', NODE_24);
    expect(failure?.module).toBe('@scope/native-thing');
    expect(failure?.problem).not.toContain('\n');
  });

  it('an addon never built (`bindings` finds no .node file) is a native-module failure too', () => {
    const error = coded('Could not locate the bindings file. Tried:\n → /app/node_modules/better-sqlite3/build/better_sqlite3.node');
    expect(nativeModuleFailure(error, 'better-sqlite3', NODE_24)?.problem).toContain('never built');
  });

  it('damaged data and other errors are not (they stay ERR_SANDBOX_DATA)', () => {
    expect(nativeModuleFailure(coded('file is not a database', 'SQLITE_NOTADB'), 'better-sqlite3', NODE_24)).toBeUndefined();
    expect(nativeModuleFailure(coded('database disk image is malformed', 'SQLITE_CORRUPT'), 'better-sqlite3', NODE_24)).toBeUndefined();
    expect(nativeModuleFailure('not an error', 'better-sqlite3', NODE_24)).toBeUndefined();
  });
});
