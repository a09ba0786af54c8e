// Loads templates/ (script .js templates, request bodies, vendored schemas) and renders them with handlebars.
// Loading is the only I/O; rendering is pure. Placeholders sit inside JS string literals so the script templates
// stay valid, lintable JavaScript: `'{{js value}}'` renders value escaped for a single-quoted string.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Handlebars from 'handlebars';
import type { Json } from './schemas.js';

/** Everything the generator reads from templates/, by file name without extension. */
export interface Templates {
  /** templates/scripts/<name>.js */
  scripts: Readonly<Record<string, string>>;
  /** templates/bodies/<name>.json.hbs → <name> */
  bodies: Readonly<Record<string, string>>;
  /** templates/schemas/<name>.json */
  schemas: Readonly<Record<string, { [key: string]: Json }>>;
}

import { DEFAULT_TEMPLATES_DIR } from './files.js';

export { DEFAULT_TEMPLATES_DIR };

function readFolder(dir: string, suffix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith(suffix))
    .sort()) {
    out[file.slice(0, -suffix.length)] = readFileSync(join(dir, file), 'utf8');
  }
  return out;
}

export function loadTemplates(dir: string = DEFAULT_TEMPLATES_DIR): Templates {
  const schemas: Record<string, { [key: string]: Json }> = {};
  for (const [name, text] of Object.entries(readFolder(join(dir, 'schemas'), '.json'))) {
    schemas[name] = JSON.parse(text) as { [key: string]: Json };
  }
  return { scripts: readFolder(join(dir, 'scripts'), '.js'), bodies: readFolder(join(dir, 'bodies'), '.json.hbs'), schemas };
}

const handlebars = Handlebars.create();
// 'js': a value as the inside of a single-quoted JS string (objects as their JSON text). JSON's escapes are JS string
// escapes; a double quote needs none inside single quotes, so it stays bare (a schema's JSON text is full of them).
handlebars.registerHelper('js', (value: unknown) => {
  const text = value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  const escaped = JSON.stringify(text)
    .slice(1, -1)
    .replace(/\\(.)/g, (pair, char: string) => (char === '"' ? '"' : pair));
  return new handlebars.SafeString(escaped.replace(/'/g, "\\'"));
});
// 'json': a value as JSON (request bodies).
handlebars.registerHelper('json', (value: unknown) => new handlebars.SafeString(JSON.stringify(value)));

/** Renders one template text; a missing parameter is an error (strict), not an empty string. */
export function render(template: string, params: Record<string, unknown>): string {
  const text = withLineConditions(template, params);
  let compiled = compiledTemplates.get(text);
  if (compiled === undefined) {
    compiled = handlebars.compile(text, { strict: true, noEscape: true });
    compiledTemplates.set(text, compiled);
  }
  return compiled(params);
}

/** A script line that ends `// obflow:if <param>` is rendered (without the marker) only when the param is true: one
 *  script serves a variant that adds a line or two (flow.jarm's response_mode), and stays lintable JS, which a
 *  Handlebars block on its own line would not be. A marker naming a missing param is an error, as in strict mode. */
const LINE_CONDITION = /[ \t]*\/\/ obflow:if (\w+)$/;

export function withLineConditions(template: string, params: Record<string, unknown>): string {
  if (!template.includes('// obflow:if ')) return template;
  return template
    .split('\n')
    .flatMap((line) => {
      const marker = LINE_CONDITION.exec(line);
      if (marker === null) return [line];
      const name = marker[1] as string;
      if (!(name in params)) throw new TypeError(`the template's line condition names "${name}", which the params lack`);
      return params[name] === true ? [line.slice(0, marker.index)] : [];
    })
    .join('\n');
}

/** Each template text compiled once per process: the flow renders the same parts for many items (and the whole-flow
 *  collection renders every step again). */
const compiledTemplates = new Map<string, HandlebarsTemplateDelegate>();
