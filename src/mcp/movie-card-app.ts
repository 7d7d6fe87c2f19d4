/**
 * The movie card, an MCP App (the MCP Apps extension, io.modelcontextprotocol/ui, 2026-01-26): a `ui://`
 * resource of MIME type `text/html;profile=mcp-app` that a host shows beside a getMovie or searchMovies
 * result (tools.json `app` lists it as the tool's `_meta.ui.resourceUri`). The view speaks the
 * extension's JSON-RPC over postMessage: `ui/initialize` then `ui/notifications/initialized`; it renders
 * each movie of `ui/notifications/tool-result` (title, year, rating, genre, directors); it asks the host
 * to call myWatchlist for the caller's watch status, and addToWatchlist when the user presses Add. It
 * never reaches the network itself: one self-contained document, its script and style allowed by hash
 * in its own Content-Security-Policy and nothing else, and the resource declares no domain at all.
 * Data is written with textContent only, so a title cannot become markup.
 */
import { createHash } from 'node:crypto';
import type { ReadResourceResult, Resource } from '@modelcontextprotocol/server';

export const MOVIE_CARD_URI = 'ui://moviedb/card';
const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The extension's revision the view speaks. */
const APPS_PROTOCOL_VERSION = '2026-01-26';

const STYLE = `
:root { color-scheme: light dark; font-family: var(--font-sans, system-ui, sans-serif); }
body { margin: 0; padding: 8px; background: var(--color-background-primary, Canvas); color: var(--color-text-primary, CanvasText); }
.card { border: 1px solid var(--color-border-primary, #8886); border-radius: var(--border-radius-md, 8px); padding: 12px 14px; margin: 0 0 8px; }
.card h2 { font-size: 1.1rem; margin: 0 0 4px; }
.meta, .directors { margin: 0 0 4px; color: var(--color-text-secondary, GrayText); }
.status { margin: 8px 0 0; font-weight: 600; }
button { margin-top: 8px; font: inherit; padding: 4px 12px; cursor: pointer; }
.note { color: var(--color-text-secondary, GrayText); }
`;

const SCRIPT = `
(() => {
  'use strict';
  const root = document.getElementById('app');
  const pending = new Map();
  const cards = new Map();
  let nextId = 1;
  const send = (message) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ id, method, params });
    });
  const notify = (method, params) => send({ method, params });
  const element = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const show = (text) => root.replaceChildren(element('p', 'note', text));
  const firstError = (result) => {
    const error = result && result.structuredContent && result.structuredContent.errors && result.structuredContent.errors[0];
    const text = result && result.content && result.content[0] && result.content[0].text;
    return { message: (error && error.message) || text || 'The call failed.', classification: error && error.classification };
  };

  async function callTool(name, args) {
    const result = await request('tools/call', { name, arguments: args });
    if (result.isError) throw Object.assign(new Error(firstError(result).message), firstError(result));
    return result.structuredContent.data;
  }

  const STATUS = { WANT_TO_WATCH: 'On your watch list: want to watch', WATCHED: 'On your watch list: watched' };
  function setStatus(parts, status) {
    parts.status.textContent = status ? STATUS[status] || status : 'Not on your watch list';
    parts.add.hidden = Boolean(status);
    parts.add.disabled = false;
    parts.add.textContent = 'Add to watch list';
  }

  async function refreshStatuses() {
    let entries;
    try {
      entries = await callTool('myWatchlist', {});
    } catch (error) {
      const text = error.classification === 'UNAUTHORIZED' ? 'Sign in to keep a watch list.' : 'Watch list unavailable: ' + error.message;
      for (const parts of cards.values()) parts.status.textContent = text;
      return;
    }
    const statusOf = new Map(
      entries.filter((entry) => entry.content && entry.content.__typename === 'Movie').map((entry) => [entry.content.id, entry.status]),
    );
    for (const [id, parts] of cards) setStatus(parts, statusOf.get(id));
  }

  async function add(id, parts) {
    parts.add.disabled = true;
    parts.add.textContent = 'Adding...';
    try {
      const entry = await callTool('addToWatchlist', { subject: { movieId: id } });
      setStatus(parts, entry.status);
    } catch (error) {
      if (/already in your watch list/.test(error.message)) return refreshStatuses();
      parts.status.textContent = error.message;
      parts.add.disabled = false;
      parts.add.textContent = 'Add to watch list';
    }
  }

  function card(movie) {
    const article = element('article', 'card');
    article.dataset.movieId = movie.id;
    article.append(element('h2', '', movie.title));
    const rating = typeof movie.rating === 'number' ? 'rated ' + movie.rating.toFixed(1) + '/10' : 'not rated';
    const genre = movie.genre ? movie.genre.charAt(0) + movie.genre.slice(1).toLowerCase().replace(/_/g, ' ') : 'no genre';
    article.append(element('p', 'meta', [movie.releaseYear, genre, rating].join(' · ')));
    if (Array.isArray(movie.directors)) {
      const names = movie.directors.map((person) => person.name).join(', ');
      article.append(element('p', 'directors', names ? 'Directed by ' + names : 'Director unknown'));
    }
    const parts = { status: element('p', 'status', 'Checking your watch list...'), add: element('button', 'add', 'Add to watch list') };
    parts.add.type = 'button';
    parts.add.hidden = true;
    parts.add.addEventListener('click', () => add(movie.id, parts));
    article.append(parts.status, parts.add);
    cards.set(movie.id, parts);
    return article;
  }

  function render(result) {
    if (!result || result.isError) return show(firstError(result).message);
    const data = result.structuredContent && result.structuredContent.data;
    const movies = data && Array.isArray(data.content) ? data.content : data && data.id ? [data] : [];
    cards.clear();
    if (movies.length === 0) return show('No movie to show.');
    root.replaceChildren(...movies.map(card));
    return refreshStatuses();
  }

  window.addEventListener('message', (event) => {
    if (event.source !== window.parent) return;
    const message = event.data;
    if (!message || message.jsonrpc !== '2.0') return;
    if (message.method === undefined && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(new Error(message.error.message));
      else resolve(message.result);
    } else if (message.method === 'ui/notifications/tool-result') {
      render(message.params);
    } else if (message.method !== undefined && message.id !== undefined) {
      if (message.method === 'ping' || message.method === 'ui/resource-teardown') send({ id: message.id, result: {} });
      else send({ id: message.id, error: { code: -32601, message: 'Method not found: ' + message.method } });
    }
  });

  new ResizeObserver(() => {
    notify('ui/notifications/size-changed', { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight });
  }).observe(document.documentElement);

  request('ui/initialize', {
    appInfo: { name: 'moviedb-movie-card', version: '1' },
    appCapabilities: { availableDisplayModes: ['inline'] },
    protocolVersion: '${APPS_PROTOCOL_VERSION}',
  }).then(
    () => notify('ui/notifications/initialized', {}),
    (error) => show('The host refused ui/initialize: ' + error.message),
  );
})();
`;

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** Nothing but this document's own script and style: no network, no frames, no forms, no base. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src ${hashOf(SCRIPT)}`,
  `style-src ${hashOf(STYLE)}`,
  'img-src data:',
  "connect-src 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Movie card</title>
<style>${STYLE}</style>
</head>
<body>
<main id="app"><p class="note">Waiting for the movie...</p></main>
<script>${SCRIPT}</script>
</body>
</html>
`;

/**
 * The extension's resource metadata: no domain of any kind (the host's CSP then allows nothing beyond
 * the document), and a border around the card.
 */
const UI_META = {
  ui: {
    csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
    prefersBorder: true,
  },
};

export const MOVIE_CARD_RESOURCE: Resource = {
  uri: MOVIE_CARD_URI,
  name: 'movie-card',
  title: 'Movie card',
  description:
    'An MCP App (text/html;profile=mcp-app) showing getMovie and searchMovies results as cards with the ' +
    "caller's watch status and a button that adds the movie to the watch list.",
  mimeType: MCP_APP_MIME_TYPE,
  _meta: UI_META,
};

export function readMovieCard(): ReadResourceResult {
  return { contents: [{ uri: MOVIE_CARD_URI, mimeType: MCP_APP_MIME_TYPE, text: HTML, _meta: UI_META }] };
}
