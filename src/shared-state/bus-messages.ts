/**
 * Every kind of message replicas send each other, with how it travels: adding a kind is one entry here
 * (its channel name and its codec), and the bus is typed by this table. A message that does not decode
 * (another version's, or noise on the channel) is dropped by the bus, never handed to a subscriber.
 */
import type { ClientAnswer } from './client-answers.js';
import { isPlainObject } from '../is-plain-object.js';

export interface Codec<T> {
  encode(message: T): string;
  /** The message, or undefined when `text` is not one. */
  decode(text: string): T | undefined;
}

/** A message that is one string, sent as it is (Lua scripts publish these too). */
const text: Codec<string> = { encode: (message) => message, decode: (message) => message };

/** A message sent as JSON, checked on the way in. */
function json<T>(isMessage: (value: unknown) => value is T): Codec<T> {
  return {
    encode: (message) => JSON.stringify(message),
    decode(message) {
      try {
        const value: unknown = JSON.parse(message);
        return isMessage(value) ? value : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

export const BUS_MESSAGES = {
  /** A call to cancel, by its key (cancellation-bus.ts): the replica running it aborts it. */
  'mcp:cancel': text,
  /** A 2025 session that ended, by id (published by the session store's DELETE script). */
  'mcp:closed': text,
  /** A client's answer to a question a call asked (client-answers.ts), for the replica where it waits. */
  'mcp:answer': json((value): value is { key: string; answer: ClientAnswer } => {
    if (!isPlainObject(value) || typeof value.key !== 'string' || !isPlainObject(value.answer)) return false;
    return isPlainObject(value.answer.result) || typeof value.answer.error === 'string';
  }),
  /** A write cleared the result cache; the message names the announcing process (its own is ignored). */
  'result-cache:invalidate': text,
} satisfies Record<string, { encode(message: never): string; decode(text: string): unknown }>;

export type BusChannel = keyof typeof BUS_MESSAGES;

/** The message type of each channel. */
export type BusMessage<C extends BusChannel> = (typeof BUS_MESSAGES)[C] extends Codec<infer T> ? T : never;
