// What a strategy's parameters are, read from its zod schema (never from a table kept beside it):
// every path (nested objects as a.b, list elements as list.N.field), its type with bounds, its
// default and its .describe() text. `makerd strategies` prints it; grid sweeps check their paths
// against it. The schema is read through zod's JSON Schema export, so a user's module built with
// its own copy of zod 4 reads the same; a schema that is not zod's yields undefined.
import { z } from 'zod';

/** A JSON Schema node as zod 4 writes it (the fields read here). */
export interface SchemaNode {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
}

export interface ParamInfo {
  /** Dotted path; list elements as N (`bands.N.distance`). */
  path: string;
  type: string;
  /** The default as printed: text for a string, else JSON; '-' for none, '(required)' when it must be given. */
  default: string;
  /** The schema's .describe() text, '' when it has none. */
  description: string;
}

export interface ParamsDescription {
  /** The .describe() text of the params object itself, '' when none. */
  summary: string;
  params: ParamInfo[];
}

/** The schema as JSON Schema (input side: defaults are optional), or undefined when it is not a zod 4 schema. */
export function paramsJsonSchema(schema: unknown): SchemaNode | undefined {
  if (!schema || typeof schema !== 'object' || !('_zod' in schema)) return undefined;
  try {
    return z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as SchemaNode;
  } catch {
    return undefined;
  }
}

function num(x: number): string {
  return String(x);
}

/** One node's type: `number >= 0`, `number in (0, 0.5]`, `integer`, `mid | microprice`, `list of 1-15`, ... */
export function typeOf(n: SchemaNode): string {
  const alts = n.anyOf ?? n.oneOf;
  if (alts) return alts.map(typeOf).join(' | ');
  if (n.enum) return n.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' | ');
  if (n.const !== undefined) return JSON.stringify(n.const);
  const t = Array.isArray(n.type) ? n.type.join(' | ') : n.type;
  if (t === 'number' || t === 'integer') {
    // .int() adds the safe-integer range: not worth printing
    const lo = n.minimum === -Number.MAX_SAFE_INTEGER ? undefined : (n.exclusiveMinimum ?? n.minimum);
    const hi = n.maximum === Number.MAX_SAFE_INTEGER ? undefined : (n.exclusiveMaximum ?? n.maximum);
    const loOpen = n.exclusiveMinimum !== undefined;
    const hiOpen = n.exclusiveMaximum !== undefined;
    if (lo !== undefined && hi !== undefined) return `${t} in ${loOpen ? '(' : '['}${num(lo)}, ${num(hi)}${hiOpen ? ')' : ']'}`;
    if (lo !== undefined) return `${t} ${loOpen ? '>' : '>='} ${num(lo)}`;
    if (hi !== undefined) return `${t} ${hiOpen ? '<' : '<='} ${num(hi)}`;
    return t;
  }
  if (t === 'array') {
    const count =
      n.minItems !== undefined && n.maxItems !== undefined
        ? n.minItems === n.maxItems
          ? ` of ${n.minItems}`
          : ` of ${n.minItems}-${n.maxItems}`
        : n.minItems !== undefined
          ? ` of ${n.minItems}+`
          : n.maxItems !== undefined
            ? ` of up to ${n.maxItems}`
            : '';
    const item = n.items ? typeOf(n.items) : 'any';
    return `list${count}${item === 'object' ? '' : ` (${item})`}`;
  }
  if (t === 'string') {
    if (n.minLength !== undefined || n.maxLength !== undefined) return `text (${n.minLength ?? 0}-${n.maxLength ?? '...'} chars)`;
    return 'text';
  }
  return t ?? 'any';
}

function printDefault(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Every parameter of a params schema, depth first in the schema's order. */
export function describeParams(schema: unknown): ParamsDescription | undefined {
  const root = paramsJsonSchema(schema);
  if (!root) return undefined;
  const params: ParamInfo[] = [];
  const walk = (n: SchemaNode, prefix: string): void => {
    if (n.properties) {
      for (const [k, child] of Object.entries(n.properties)) {
        const path = prefix + k;
        const required = (n.required ?? []).includes(k);
        params.push({
          path,
          type: typeOf(child),
          default: child.default !== undefined ? printDefault(child.default) : required ? '(required)' : '-',
          description: (child.description ?? '').replace(/\s+/g, ' ').trim(),
        });
        walk(child, `${path}.`);
      }
    } else if (n.items) {
      walk(n.items, `${prefix}N.`);
    }
  };
  walk(root, '');
  return { summary: (root.description ?? '').replace(/\s+/g, ' ').trim(), params };
}

/** The names of an object node's parameters (for "its parameters: ..."). */
export function propertyNames(n: SchemaNode): string[] {
  return Object.keys(n.properties ?? {});
}

/**
 * A refinement for a params schema (`.superRefine(minNotAboveMax(['minSpread', 'maxSpread']))`):
 * each [min, max] pair of keys keeps min <= max, else an issue on the min key. A min above its max
 * leaves nothing to quote: refused where the params are read, not a run that quietly quotes nothing.
 */
export function minNotAboveMax<K extends string>(...pairs: Array<[K, K]>) {
  return (p: Partial<Record<K, unknown>>, ctx: { addIssue(issue: { code: 'custom'; path: string[]; message: string }): void }): void => {
    for (const [lo, hi] of pairs) {
      const a = p[lo];
      const b = p[hi];
      if (typeof a === 'number' && typeof b === 'number' && a > b) ctx.addIssue({ code: 'custom', path: [lo], message: `exceeds ${hi} (${a} > ${b})` });
    }
  };
}
