/**
 * Exit codes from sysexits(3), so a supervisor can tell a mistake that a restart will not fix (EX_CONFIG,
 * EX_DATAERR, EX_USAGE) from a condition that may pass (EX_UNAVAILABLE).
 */
export const EXIT = {
  OK: 0,
  /** A command failed in an ordinary way (sign-in refused). */
  FAILURE: 1,
  /** Unknown command or missing arguments. */
  USAGE: 64,
  /** The operation catalogue, the schema or the seed file does not validate. */
  DATA: 65,
  /** The database or the port is not available right now. */
  UNAVAILABLE: 69,
  /** Anything unexpected. */
  SOFTWARE: 70,
  /** A file could not be read or written (the tool lock is a folder, or not writable). */
  IO_ERROR: 74,
  /** Not allowed to bind the port. */
  NO_PERMISSION: 77,
  /** Invalid configuration: restarting with the same settings cannot help. */
  CONFIG: 78,
} as const;
