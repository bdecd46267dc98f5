// Builds the console into dist/ (checked in; the server embeds it): the TypeScript bundled into
// one minified script and the style minified by esbuild (smaller to embed and to serve). The
// page, src/index.html, is not built: the server embeds it as it is. `cargo xtask console` runs
// this after `npm ci`; `--check` builds into a scratch directory (`A2A_CONSOLE_OUT`) and fails
// when dist/ differs from it.
import { build } from 'esbuild';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = process.env.A2A_CONSOLE_OUT || join(here, 'dist');
mkdirSync(dist, { recursive: true });
// One build, two outputs: dist/console.js (the script, an IIFE) and dist/console.css.
await build({
  entryPoints: [
    { in: join(here, 'src', 'main.ts'), out: 'console' },
    { in: join(here, 'src', 'console.css'), out: 'console' },
  ],
  outdir: dist,
  bundle: true,
  format: 'iife',
  target: 'es2022',
  charset: 'utf8',
  legalComments: 'none',
  minify: true,
  sourcemap: false,
  logLevel: 'warning',
});
