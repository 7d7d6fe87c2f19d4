/**
 * Raw HTTP for what fetch cannot do: choose the Host header, the local address a request comes from
 * (any 127.x.y.z reaches a loopback server, so tests can play several client addresses), send a body
 * in parts, or keep a streaming response open.
 */
import { request as httpRequest, type Agent, type ClientRequest, type IncomingMessage } from 'node:http';

export interface RawOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  localAddress?: string;
  /** A keep-alive agent, to send several requests on one connection. */
  agent?: Agent;
}

export interface RawResponse {
  status: number;
  headers: IncomingMessage['headers'];
  /** The header lines as sent: names in their case, in their order. */
  rawHeaders: string[];
  body: string;
}

export function raw(url: string, options: RawOptions = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        localAddress: options.localAddress,
        agent: options.agent,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Opens a request whose response stays open (an SSE stream); resolves once its headers arrived. */
export function openStream(
  url: string,
  options: RawOptions = {},
): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers, localAddress: options.localAddress },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * Starts a POST whose headers the server has accepted (it answered `100 Continue`) but whose body is
 * not sent yet: a request already received. `finish` sends the body and resolves with the response.
 */
export function holdRequest(
  url: string,
  options: RawOptions & { body: string },
): Promise<{ finish(): Promise<RawResponse> }> {
  return new Promise((resolve, reject) => {
    let respond: (response: RawResponse) => void = () => undefined;
    let fail: (error: unknown) => void = reject;
    const response = new Promise<RawResponse>((res, rej) => {
      respond = res;
      fail = rej;
    });
    // The server may cut a held request before the test asks for its answer (a drain's grace running
    // out): that rejection is the test's to read from finish(), not an unhandled one meanwhile.
    response.catch(() => undefined);
    const req = httpRequest(
      url,
      {
        method: options.method ?? 'POST',
        headers: {
          ...options.headers,
          expect: '100-continue',
          'content-length': String(Buffer.byteLength(options.body)),
        },
        localAddress: options.localAddress,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          respond({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body }),
        );
        res.on('error', (error) => fail(error));
      },
    );
    req.on('error', (error) => {
      fail(error);
      reject(error);
    });
    req.on('continue', () =>
      resolve({
        finish: () => {
          req.end(options.body);
          return response;
        },
      }),
    );
    req.flushHeaders();
  });
}
