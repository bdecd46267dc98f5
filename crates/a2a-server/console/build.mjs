// Builds the console into dist/ (checked in; the server embeds it): the TypeScript bundled into
// one minified script and the style minified by esbuild (smaller to embed and to serve), the
// HTML copied. `cargo xtask console` runs it after
// `npm ci`; `--check` builds into a scratch directory (`A2A_CONSOLE_OUT`) and fails when dist/
// differs from it.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = process.env.A2A_CONSOLE_OUT || join(here, 'dist');
mkdirSync(dist, { recursive: true });
await build({
  entryPoints: [join(here, 'src', 'main.ts')],
  outfile: join(dist, 'console.js'),
  bundle: true,
  format: 'iife',
  target: 'es2022',
  charset: 'utf8',
  legalComments: 'none',
  minify: true,
  sourcemap: false,
  logLevel: 'warning',
});
copyFileSync(join(here, 'src', 'index.html'), join(dist, 'index.html'));
await build({
  entryPoints: [join(here, 'src', 'console.css')],
  outfile: join(dist, 'console.css'),
  minify: true,
  charset: 'utf8',
  logLevel: 'warning',
});
