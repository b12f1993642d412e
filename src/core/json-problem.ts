// Where and why a text JSON.parse refused stops being JSON, without quoting any of it: V8's own
// message quotes the text around the error, and a config file may hold a secret by mistake.

/**
 * Where and why `text` (which JSON.parse refused) stops being JSON (RFC 8259): a generic reason and
 * the 1-based line and column, never any of the text itself.
 */
export function jsonProblem(text: string): string {
  let i = 0;
  class Bad extends Error {
    constructor(
      readonly at: number,
      readonly why: string,
    ) {
      super(why);
    }
  }
  const fail = (why: string, at = i): never => {
    throw new Bad(at, at >= text.length ? 'unexpected end of the file' : why);
  };
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const digits = (): void => {
    if (!(text[i] >= '0' && text[i] <= '9')) fail('a malformed number');
    while (text[i] >= '0' && text[i] <= '9') i++;
  };
  const string = (): void => {
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) fail('');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) fail('a control character in a string');
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('a bad escape in a string');
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else fail('a bad escape in a string', e === undefined ? i + 1 : i);
      } else i++;
    }
  };
  /** An object member's name and its colon. */
  const name = (): void => {
    if (text[i] !== '"') fail('expected a property name in double quotes');
    string();
    ws();
    if (text[i] !== ':') fail("expected ':' after a property name");
    i++;
  };
  // iterative over the nesting (a deep file must not exhaust the stack): what each open container expects next
  const value = (): void => {
    const open: Array<'{' | '['> = [];
    for (;;) {
      ws();
      const c = text[i];
      if (c === '{' || c === '[') {
        i++;
        ws();
        if (text[i] === (c === '{' ? '}' : ']')) i++;
        else {
          open.push(c);
          if (c === '{') name();
          continue;
        }
      } else if (c === '"') string();
      else if (c === '-' || (c >= '0' && c <= '9')) {
        if (c === '-') i++;
        if (text[i] === '0') i++;
        else digits();
        if (text[i] === '.') {
          i++;
          digits();
        }
        if (text[i] === 'e' || text[i] === 'E') {
          i++;
          if (text[i] === '+' || text[i] === '-') i++;
          digits();
        }
      } else {
        const word = ['true', 'false', 'null'].find((w) => text.startsWith(w, i));
        if (!word) fail('expected a value');
        i += (word as string).length;
      }
      // a value ended: close what it ends, or go on to the next member or element
      for (;;) {
        ws();
        const top = open[open.length - 1];
        if (top === undefined) {
          if (i < text.length) fail('unexpected text after the JSON value');
          return;
        }
        const close = top === '{' ? '}' : ']';
        if (text[i] === close) {
          i++;
          open.pop();
          continue;
        }
        if (text[i] !== ',') fail(top === '{' ? "expected ',' or '}' after a property value" : "expected ',' or ']' after an element");
        i++;
        if (top === '{') {
          ws();
          name();
        }
        break;
      }
    }
  };
  try {
    value();
  } catch (e) {
    if (!(e instanceof Bad)) throw e;
    const before = text.slice(0, e.at);
    const line = before.split('\n').length;
    const column = e.at - (before.lastIndexOf('\n') + 1) + 1;
    return `${e.why} at line ${line}, column ${column}`;
  }
  // JSON.parse refused what this reads as JSON (it should not happen): still no text
  return 'not parseable';
}

/** A name written twice in one object of a JSON text: its path (dotted, array elements by index) and both 1-based lines. */
export interface DuplicateKey {
  path: string;
  firstLine: number;
  line: number;
}

/**
 * The first name repeated within one object of `text` (valid JSON: JSON.parse took it, keeping the
 * last value in silence). Names compare decoded (`"a\u0062"` is `"ab"`); no text but names is returned.
 */
export function duplicateKey(text: string): DuplicateKey | undefined {
  interface Open {
    /** Names seen, with the line of each (objects); undefined for an array. */
    names?: Map<string, number>;
    /** The path down to this container. */
    path: string[];
    /** The name or index of the value now being read in it. */
    at: string;
    index: number;
  }
  const stack: Open[] = [];
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    else if (c === '{' || c === '[') {
      const top = stack[stack.length - 1];
      const path = top ? [...top.path, top.at] : [];
      stack.push(c === '{' ? { names: new Map(), path, at: '', index: 0 } : { path, at: '0', index: 0 });
    } else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top && !top.names) top.at = String(++top.index);
    } else if (c === '"') {
      const start = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
      const top = stack[stack.length - 1];
      let j = i + 1;
      while (text[j] === ' ' || text[j] === '\t' || text[j] === '\r' || text[j] === '\n') j++;
      if (!top?.names || text[j] !== ':') continue;
      const name = JSON.parse(text.slice(start, i + 1)) as string;
      const first = top.names.get(name);
      if (first !== undefined) return { path: [...top.path, name].join('.'), firstLine: first, line };
      top.names.set(name, line);
      top.at = name;
    }
  }
  return undefined;
}
