import { describe, expect, it } from 'vitest';
import { createAnnouncer } from '../../src/store/owned-rows-announcer.js';

/** An announcer whose statements a test answers by hand, and whose turns it runs by hand. */
function harness() {
  const statements: { ids: string[]; settle: (error?: unknown) => void }[] = [];
  const turns: (() => void)[] = [];
  let connected = true;
  const announcer = createAnnouncer({
    send(ids) {
      if (!connected) return undefined;
      return new Promise<void>((resolve, reject) => {
        statements.push({ ids, settle: (error) => (error ? reject(error) : resolve()) });
      });
    },
    schedule: (run) => void turns.push(run),
  });
  return {
    announcer,
    statements,
    sent: () => statements.map((statement) => statement.ids),
    /** Runs the turns scheduled so far, then lets their promise jobs run. */
    async turn() {
      for (const run of turns.splice(0)) run();
      await new Promise((resolve) => setImmediate(resolve));
    },
    /** Settles the last statement (with an error: refused or lost), then lets what follows it be scheduled. */
    async settle(error?: unknown) {
      statements.at(-1)!.settle(error);
      await new Promise((resolve) => setImmediate(resolve));
    },
    disconnect: () => void (connected = false),
    connect: () => void (connected = true),
  };
}

const refused = Object.assign(new Error('payload string too long'), { code: '22023' });
const lost = new Error('Connection terminated unexpectedly');

describe('the owned-rows announcer', () => {
  it("sends a turn's accounts in one statement, each once", async () => {
    const h = harness();
    h.announcer.add('1');
    h.announcer.add('2');
    h.announcer.add('1');
    expect(h.sent()).toEqual([]);
    await h.turn();
    expect(h.sent()).toEqual([['1', '2']]);
  });

  it('past 1,000 accounts, or with any account among them, sends one notice for any account', async () => {
    const h = harness();
    for (let id = 1; id <= 1001; id++) h.announcer.add(String(id));
    await h.turn();
    await h.settle();
    h.announcer.add('7');
    h.announcer.add('*');
    h.announcer.add('8');
    await h.turn();
    expect(h.sent()).toEqual([['*'], ['*']]);
  });

  it('sends one statement at a time: the turns that add accounts while one is on its way share the next', async () => {
    const h = harness();
    h.announcer.add('1');
    await h.turn();
    for (const id of ['2', '3', '4']) {
      h.announcer.add(id);
      await h.turn();
    }
    expect(h.sent()).toEqual([['1']]);
    await h.settle();
    await h.turn();
    expect(h.sent()).toEqual([['1'], ['2', '3', '4']]);
  });

  it('keeps the accounts while there is no connection, and sends them when it is back', async () => {
    const h = harness();
    h.disconnect();
    h.announcer.add('1');
    await h.turn();
    expect(h.sent()).toEqual([]);
    h.connect();
    h.announcer.wake();
    await h.turn();
    expect(h.sent()).toEqual([['1']]);
  });

  it('sends the accounts of a statement lost with its connection again when the next connection is live', async () => {
    const h = harness();
    h.announcer.add('1');
    await h.turn();
    h.disconnect();
    await h.settle(lost);
    await h.turn();
    expect(h.sent()).toEqual([['1']]);
    h.connect();
    h.announcer.wake();
    await h.turn();
    expect(h.sent()).toEqual([['1'], ['1']]);
  });

  it('a connection back before its lost statement failed still gets what that statement carried', async () => {
    const h = harness();
    h.announcer.add('1');
    await h.turn();
    h.announcer.wake();
    await h.settle(lost);
    await h.turn();
    expect(h.sent()).toEqual([['1'], ['1']]);
  });

  it('replaces a refused statement by one notice for any account, sent with the next write, never in a loop', async () => {
    const h = harness();
    h.announcer.add('1');
    await h.turn();
    await h.settle(refused);
    await h.turn();
    await h.turn();
    expect(h.sent()).toEqual([['1']]);
    h.announcer.add('2');
    await h.turn();
    await h.settle(refused);
    await h.turn();
    expect(h.sent()).toEqual([['1'], ['*']]);
  });

  it('after a refusal, a write made while the statement was on its way is sent at once, once', async () => {
    const h = harness();
    h.announcer.add('1');
    await h.turn();
    h.announcer.add('2');
    await h.settle(refused);
    await h.turn();
    expect(h.sent()).toEqual([['1'], ['*']]);
    await h.settle(refused);
    await h.turn();
    expect(h.sent()).toEqual([['1'], ['*']]);
  });

  it('flush waits for the statement on its way, then sends the rest', async () => {
    const h = harness();
    h.announcer.add('1');
    await h.turn();
    h.announcer.add('2');
    let flushed = false;
    const flushing = h.announcer.flush().then(() => (flushed = true));
    await h.turn();
    expect(h.sent()).toEqual([['1']]);
    await h.settle();
    expect(h.sent()).toEqual([['1'], ['2']]);
    expect(flushed).toBe(false);
    await h.settle();
    await flushing;
    expect(flushed).toBe(true);
  });

  it("a turn scheduled before a flush's statement sends nothing beside it", async () => {
    const h = harness();
    h.announcer.add('1');
    const flushing = h.announcer.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.sent()).toEqual([['1']]);
    h.announcer.add('2');
    await h.turn();
    expect(h.sent()).toEqual([['1']]);
    await h.settle();
    await flushing;
    await h.turn();
    expect(h.sent()).toEqual([['1'], ['2']]);
  });

  it('flush with nothing to send returns at once', async () => {
    await expect(harness().announcer.flush()).resolves.toBeUndefined();
  });
});
