// uPlot (MIT, a dependency), inlined into each report so the page is one self-contained file with
// no network: its minified script and stylesheet are read from node_modules when a report is
// written (about 53 kB together), once per process.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface ChartLibrary {
  name: string;
  version: string;
  js: string;
  css: string;
}

let cached: ChartLibrary | undefined;

export function uplot(): ChartLibrary {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const pkg = JSON.parse(readFileSync(require.resolve('uplot/package.json'), 'utf8')) as { version: string };
  const js = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8');
  const css = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
  cached = { name: 'uPlot', version: pkg.version, js: inlineScript(js), css: css.replace(/<\/style/gi, '<\\/style') };
  return cached;
}

/** Text safe inside a <script> element: no '</script' or '<!--' can close or confuse it. */
export function inlineScript(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** JSON safe inside <script type="application/json">: every '<' escaped (JSON.parse reads it back). */
export function inlineJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}
