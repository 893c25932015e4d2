// `npm run check` step: imports run down the layers, never up, and no two folders of one layer
// import each other (a folder-level cycle is a layer problem even when no file cycle exists).
//
//   server: core → db, config → engine (the adapters) → domain folders → http → kade.ts/runner.ts/main.ts
//   web:    shared, api, i18n, router → components → forms → screens → the shell (app.tsx, shell/)
//
// Imports are read as text (static `from '…'`, `import('…')`, side-effect `import '…'`); only
// relative imports of .ts/.tsx files count. Tests are left out: they may reach across layers.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

interface Layer {
  name: string;
  /** Path prefixes (from the repo root) of the files in this layer. */
  places: string[];
}

/** Lowest first. A file may import its own layer's files (same folder) and any lower layer. */
const LAYERS: Layer[] = [
  { name: 'shared', places: ['src/shared/'] },
  { name: 'server core', places: ['src/server/core/'] },
  { name: 'server config and db', places: ['src/server/config/', 'src/server/db/'] },
  { name: 'server adapters', places: ['src/server/engine/'] },
  {
    name: 'server domain',
    places: [
      'src/server/audit/',
      'src/server/auth/',
      'src/server/backups/',
      'src/server/catalogue/',
      'src/server/containers/',
      'src/server/doctor/',
      'src/server/host/',
      'src/server/jobs/',
      'src/server/networks/',
      'src/server/notifications/',
      'src/server/paths/',
      'src/server/self-update/',
      'src/server/settings/',
      'src/server/stacks/',
      'src/server/templates/',
      'src/server/updates/',
    ],
  },
  { name: 'server http', places: ['src/server/http/'] },
  { name: 'server root', places: ['src/server/kade.ts', 'src/server/runner.ts', 'src/server/main.ts'] },
  {
    name: 'web base',
    places: ['src/web/api.ts', 'src/web/i18n.ts', 'src/web/router.ts', 'src/web/app-paths.ts', 'src/web/messages/'],
  },
  { name: 'web components', places: ['src/web/components/'] },
  { name: 'web forms', places: ['src/web/forms/'] },
  { name: 'web screens', places: ['src/web/screens/'] },
  { name: 'web shell', places: ['src/web/shell/', 'src/web/app.tsx', 'src/web/main.tsx'] },
];

/**
 * Folders inside one domain folder that have an order of their own, lowest first: a file may import its own
 * folder and lower ones (files directly in the domain folder, its facade, stand above all of them).
 */
const INNER: Record<string, string[]> = {
  'src/server/stacks/': ['store', 'policy', 'gate', 'read', 'use-cases'],
};

/** Folders of a layer that is a set of peers: a folder-level cycle among them is reported. */
const PEER_LAYERS = new Set(['server domain', 'web screens']);

function layerOf(file: string): { index: number; place: string } | undefined {
  for (const [index, layer] of LAYERS.entries()) {
    const place = layer.places.find((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));
    if (place) return { index, place };
  }
  return undefined;
}

/** The peer unit of a file: its layer's place, or in a layer of one folder its subfolder (screens/app). */
function peerOf(file: string, index: number, place: string): string {
  if ((LAYERS[index]?.places.length ?? 0) > 1 || !place.endsWith('/')) return place;
  const rest = file.slice(place.length).split('/');
  return rest.length > 1 ? `${place}${rest[0]}` : place;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (entry.name === 'vite.config.ts')
      continue; // the build's, not the app's
    else if (/\.tsx?$/.test(entry.name) && !/\.(test|int\.test|contract)\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      out.push(relative(root, full).split(sep).join('/'));
    }
  }
  return out;
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const out: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const target = relative(root, resolve(root, dirname(file), match[1] as string))
      .split(sep)
      .join('/');
    if (!/\.tsx?$/.test(target)) continue;
    if (existsSync(join(root, target)) && statSync(join(root, target)).isFile()) out.push(target);
  }
  return out;
}

/** An import inside a domain folder with an inner order that runs up that order. */
function innerProblem(file: string, target: string): string | null {
  for (const [place, order] of Object.entries(INNER)) {
    if (!file.startsWith(place) || !target.startsWith(place)) continue;
    const rank = (f: string) => {
      const rest = f.slice(place.length).split('/');
      return rest.length > 1 ? order.indexOf(rest[0] as string) : order.length;
    };
    const [a, b] = [rank(file), rank(target)];
    if (a === -1 || b === -1) return `${file} or ${target} is in no inner folder of ${place}: place it in scripts/check-layers.ts`;
    if (b > a) return `${file} imports ${target}, which stands above it in ${place} (${order.join(' → ')} → the facade)`;
    return null;
  }
  return null;
}

const problems: string[] = [];
const unplaced: string[] = [];
const peerEdges = new Map<string, Map<string, string>>(); // from peer → to peer → an example import

for (const file of [...walk(join(root, 'src/server')), ...walk(join(root, 'src/web')), ...walk(join(root, 'src/shared'))]) {
  const from = layerOf(file);
  if (!from) {
    unplaced.push(file);
    continue;
  }
  for (const target of importsOf(file)) {
    const to = layerOf(target);
    if (!to) continue; // reported as unplaced on its own
    if (to.index > from.index) {
      problems.push(`${file} (${LAYERS[from.index]?.name}) imports ${target} (${LAYERS[to.index]?.name}), a layer above it`);
      continue;
    }
    const inner = innerProblem(file, target);
    if (inner) problems.push(inner);
    if (to.index === from.index && PEER_LAYERS.has(LAYERS[from.index]?.name ?? '')) {
      const a = peerOf(file, from.index, from.place);
      const b = peerOf(target, to.index, to.place);
      if (a === b) continue;
      if (LAYERS[from.index]?.name === 'web screens') {
        problems.push(`${file} imports ${target}: screens do not import each other (move the shared part to components/ or forms/)`);
        continue;
      }
      const edges = peerEdges.get(a) ?? new Map<string, string>();
      if (!edges.has(b)) edges.set(b, `${file} → ${target}`);
      peerEdges.set(a, edges);
    }
  }
}

// Folder-level cycles among peers (Tarjan's strongly connected components).
function cycles(graph: Map<string, Map<string, string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

for (const component of cycles(peerEdges)) {
  const inside = new Set(component);
  const ties = component.flatMap((a) => [...(peerEdges.get(a) ?? [])].filter(([b]) => inside.has(b)).map(([, example]) => `    ${example}`));
  problems.push(`folders that import each other: ${component.join(', ')}\n${ties.join('\n')}`);
}
for (const file of unplaced) problems.push(`${file} is in no layer: place it in scripts/check-layers.ts`);

if (problems.length > 0) {
  console.error(`layers: ${problems.length} problem(s)\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log('layers: every import runs down');
