/**
 * Server-sent events over raw HTTP, for tests that need control a client library does not give: read a
 * stream event by event, cut it at a chosen point, and parse what came.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { RawOptions } from './raw-http.js';

export interface SseEvent {
  id?: string;
  data: string;
}

/** Parses an SSE body into its events (comments and blank `data:` kept as empty data). */
export function parseSse(body: string): SseEvent[] {
  return body
    .split('\n\n')
    .filter((block) => /^(id|data|event):/m.test(block))
    .map((block) => ({
      id: /^id: (.*)$/m.exec(block)?.[1],
      data: /^data: ?(.*)$/m.exec(block)?.[1] ?? '',
    }));
}

/** The JSON-RPC messages an SSE body carried, in order. */
export function messagesIn(body: string): Record<string, unknown>[] {
  return parseSse(body)
    .filter((event) => event.data !== '')
    .map((event) => JSON.parse(event.data) as Record<string, unknown>);
}

export interface OpenSse {
  status: number;
  headers: IncomingMessage['headers'];
  /** Resolves once an event with an id arrived, with that id (the priming event is the first). */
  firstEventId: Promise<string>;
  /** Everything received so far. */
  received(): string;
  /** Resolves with the whole body when the server ends the stream. */
  ended: Promise<string>;
  /** Cuts the connection (the client goes away). */
  cut(): void;
}

export function openSse(url: string, options: RawOptions = {}): Promise<OpenSse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers, localAddress: options.localAddress },
      (res) => {
        let body = '';
        let gotId: (id: string) => void = () => undefined;
        const firstEventId = new Promise<string>((r) => (gotId = r));
        const ended = new Promise<string>((done) => {
          res.on('end', () => done(body));
          res.on('close', () => done(body));
          res.on('error', () => done(body));
        });
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          const id = parseSse(body).find((event) => event.id)?.id;
          if (id) gotId(id);
        });
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          firstEventId,
          received: () => body,
          ended,
          cut: () => req.destroy(),
        });
      },
    );
    req.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
    req.end(options.body);
  });
}
