/**
 * src/cli/memory-reducer.ts sets a V8 flag with v8.setFlagsFromString, which ignores a flag it does not
 * know without a word: if a Node upgrade renamed it, the idle server would silently hold 10 to 40 MiB
 * more. On the command line V8 refuses an unknown flag, so this checks the name still exists.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MEMORY_REDUCER_FLAG } from '../../src/cli/memory-reducer.js';

describe('the memory reducer setting', () => {
  it('names a flag this Node knows', () => {
    const known = spawnSync(process.execPath, [MEMORY_REDUCER_FLAG, '-e', ''], {
      encoding: 'utf8',
    });
    expect(known.status, known.stderr).toBe(0);
    const unknown = spawnSync(process.execPath, [MEMORY_REDUCER_FLAG.replace('=', 'x='), '-e', ''], {
      encoding: 'utf8',
    });
    expect(unknown.status).not.toBe(0);
  });
});
