/**
 * A file the project reads or writes (the tool lock) that the system refused: the reason in words a person
 * can act on, not the system's errno text, and the file's path. The CLI exits EX_IOERR (74) on it.
 */
const REASONS: Record<string, string> = {
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of its path is a file, not a folder',
  ENOENT: 'its folder does not exist',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
};

export class FileAccessError extends Error {
  constructor(action: 'read' | 'write', file: string, cause: unknown) {
    const code = (cause as { code?: unknown } | null)?.code;
    const reason =
      (typeof code === 'string' && REASONS[code]) ||
      `the system refused${typeof code === 'string' ? ` (${code})` : ''}`;
    super(`Cannot ${action} ${file}: ${reason}.`, { cause });
    this.name = 'FileAccessError';
  }
}
