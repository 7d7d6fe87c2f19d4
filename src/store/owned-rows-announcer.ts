/**
 * What the PostgreSQL change feed (account-changes.ts) does with this process's own watch-list writes:
 * gathers the accounts whose rows changed and announces them in one statement at a time. Under load every
 * turn of the event loop has writes; a statement per turn queued behind the one on its way cost the
 * server and the database a round trip each, where one statement for all of them does.
 */

/** The most accounts kept to announce one by one; past it, one notice says any account changed. */
const MAX_ACCOUNTS = 1000;
/** The id that stands for any account: the replicas forget every account's own rows. */
export const ANY_ACCOUNT = '*';

export interface AnnouncerOptions {
  /**
   * Sends one statement announcing these accounts, or returns undefined when there is no live connection
   * to send it on (they wait for wake()). A rejection carrying a SQLSTATE `code` is the database refusing
   * the statement; any other, a connection lost with it.
   */
  send(ids: string[]): Promise<unknown> | undefined;
  /** Runs the next statement after this turn; a test passes its own. */
  schedule?: (run: () => void) => void;
}

export interface Announcer {
  /** An account whose own rows changed in a committed write (ANY_ACCOUNT: any account). */
  add(id: string): void;
  /** The connection is live again: send what waits. */
  wake(): void;
  /** Waits for the statement on its way, then sends what is left (a feed closing). */
  flush(): Promise<void>;
}

/** Whether the database answered with this error (a SQLSTATE: five digits or capitals, as pg sets it). */
export const isRefusal = (error: unknown) =>
  typeof (error as { code?: unknown })?.code === 'string' &&
  /^[0-9A-Z]{5}$/.test((error as { code: string }).code);

export function createAnnouncer({ send, schedule = setImmediate }: AnnouncerOptions): Announcer {
  const waiting = new Set<string>();
  let scheduled = false;
  let onItsWay: Promise<void> | undefined;
  // Whether anything asked for a statement while one was on its way: then another follows it, and only
  // then, so a statement that keeps failing is never sent in a loop.
  let askedMeanwhile = false;

  const remember = (id: string) => {
    if (waiting.has(id)) return;
    if (id === ANY_ACCOUNT || waiting.has(ANY_ACCOUNT) || waiting.size >= MAX_ACCOUNTS) {
      waiting.clear();
      waiting.add(ANY_ACCOUNT);
    } else {
      waiting.add(id);
    }
  };

  const sendWaiting = async () => {
    scheduled = false;
    if (onItsWay || waiting.size === 0) return;
    const ids = [...waiting];
    const sent = send(ids);
    if (!sent) return;
    waiting.clear();
    askedMeanwhile = false;
    onItsWay = sent.then(
      () => undefined,
      (error: unknown) => {
        // Refused, the same ids would be refused again with whatever joins them: one notice for any
        // account replaces them (forgetting more is always safe). Lost with the connection, they wait for
        // the next one.
        if (isRefusal(error)) remember(ANY_ACCOUNT);
        else for (const id of ids) remember(id);
      },
    );
    await onItsWay;
    onItsWay = undefined;
    if (askedMeanwhile) ask();
  };

  function ask() {
    if (onItsWay) {
      askedMeanwhile = true;
      return;
    }
    if (scheduled || waiting.size === 0) return;
    scheduled = true;
    schedule(() => void sendWaiting());
  }

  return {
    add(id) {
      remember(id);
      ask();
    },
    wake: ask,
    async flush() {
      await onItsWay;
      await sendWaiting();
    },
  };
}
