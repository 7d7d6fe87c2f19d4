#!/usr/bin/env node
// Slims a production node_modules for the Docker image (run in the build stage after `npm prune
// --omit=dev`, from the app's folder, with dist/ built). Nothing the running server loads is removed:
//   - packages that only serve browser assets (graphiql, react, react-dom) keep just the files the
//     GraphiQL page loads (the ASSETS of dist/http/graphiql.js), and their own dependency trees go
//     (graphiql's bundle already holds them);
//   - better-sqlite3 keeps its compiled binding and lib/, not its build tree and SQLite sources;
//   - every package loses type declarations, TypeScript sources, source maps and Markdown other than
//     licences, none of which Node loads.
// Prints the size before and after.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import console from 'node:console';
import path from 'node:path';
import process from 'node:process';

const root = process.cwd();
const modules = path.join(root, 'node_modules');
const ASSET_ONLY = new Set(['graphiql', 'react', 'react-dom']);

function sizeOf(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? sizeOf(full) : entry.isFile() ? statSync(full).size : 0;
  }
  return total;
}
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const before = sizeOf(modules);

// The installed tree as npm recorded it (kept in step by npm ci and npm prune).
const { packages } = JSON.parse(readFileSync(path.join(modules, '.package-lock.json'), 'utf8'));
const manifest = (location) =>
  location === '' ? JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) : packages[location];

// Node's lookup: <from>/node_modules/<name>, then each enclosing node_modules up to the root.
function resolve(from, name) {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate] && existsSync(path.join(root, candidate))) return candidate;
    if (!base) return undefined;
    const at = base.lastIndexOf('node_modules/');
    base = at <= 0 ? '' : base.slice(0, at - 1);
  }
}

// Every package reachable from the app's dependencies, without following the asset-only packages.
const reachable = new Set();
const queue = [''];
while (queue.length > 0) {
  const location = queue.shift();
  const pkg = manifest(location);
  if (location && ASSET_ONLY.has(location.slice(location.lastIndexOf('node_modules/') + 13))) continue;
  const names = {
    ...pkg.dependencies,
    ...pkg.optionalDependencies,
    ...pkg.peerDependencies,
  };
  for (const name of Object.keys(names)) {
    const found = resolve(location, name);
    if (found && !reachable.has(found)) {
      reachable.add(found);
      queue.push(found);
    }
  }
}
let dropped = 0;
for (const location of Object.keys(packages)) {
  if (location && !reachable.has(location) && existsSync(path.join(root, location))) {
    rmSync(path.join(root, location), { recursive: true, force: true });
    dropped += 1;
  }
}

// Keeps, under dir, only the files keep() accepts (paths relative to dir); empty folders go.
function keepOnly(dir, keep, rel = '') {
  for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const name = path.join(rel, entry.name);
    if (entry.isDirectory()) {
      keepOnly(dir, keep, name);
      if (readdirSync(path.join(dir, name)).length === 0) rmSync(path.join(dir, name), { recursive: true });
    } else if (!keep(name)) {
      rmSync(path.join(dir, name), { force: true });
    }
  }
}
const isLicence = (file) => /^licen[cs]e/i.test(path.basename(file));

const { ASSETS } = await import(path.join(root, 'dist/http/graphiql.js'));
const assetFiles = new Set(Object.values(ASSETS).map((asset) => asset.file));
for (const name of ASSET_ONLY) {
  const dir = path.join(modules, name);
  if (existsSync(dir)) {
    keepOnly(
      dir,
      (file) => file === 'package.json' || isLicence(file) || assetFiles.has(path.join(dir, file)),
    );
  }
}
for (const file of assetFiles) {
  if (!existsSync(file)) throw new Error(`GraphiQL asset missing after slimming: ${file}`);
}

const sqlite = path.join(modules, 'better-sqlite3');
if (existsSync(sqlite)) {
  keepOnly(
    sqlite,
    (file) =>
      file === 'package.json' ||
      isLicence(file) ||
      file.startsWith(`lib${path.sep}`) ||
      file === path.join('build', 'Release', 'better_sqlite3.node'),
  );
}

keepOnly(
  modules,
  (file) =>
    isLicence(file) ||
    !(/\.(d\.[cm]?ts|[cm]?ts|map|md|markdown)$/i.test(file) || /\.tsbuildinfo$/.test(file)),
);

console.log(
  `node_modules: ${mb(before)} -> ${mb(sizeOf(modules))} (${dropped} packages only graphiql needed removed)`,
);
