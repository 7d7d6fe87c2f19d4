/** A fresh copy of the project's operations folder for each test, and an edit of one of its files. */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';

const PROJECT_OPERATIONS = path.resolve(import.meta.dirname, '../../operations');

export interface OperationsCopy {
  /** The copy's folder (OPERATIONS_DIR), new for each test. */
  dir(): string;
  /** Replaces `from` (which must be there) with `to` in one file of the copy. */
  edit(file: string, from: string, to: string): void;
}

export function useOperationsCopy(): OperationsCopy {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'moviedb-operations-'));
    cpSync(PROJECT_OPERATIONS, dir, { recursive: true });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir: () => dir,
    edit(file, from, to) {
      const at = path.join(dir, file);
      const before = readFileSync(at, 'utf8');
      expect(before).toContain(from);
      writeFileSync(at, before.replace(from, to));
    },
  };
}
