// A strict JSON parser for log lines: RFC 8259 values, and it throws on a duplicated key in any
// object at any depth (JSON.parse silently keeps the last one; many log tools refuse the line or
// keep the first). Tests run every log line through it.

export class StrictJsonError extends Error {}

export function strictParse(text: string): unknown {
  let i = 0;
  const fail = (what: string): never => {
    throw new StrictJsonError(`${what} at ${i}: ${JSON.stringify(text.slice(Math.max(0, i - 20), i + 20))}`);
  };
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const str = (): string => {
    if (text[i] !== '"') fail('expected a string');
    const start = i++;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) fail('control character in a string');
      if (c === 0x5c) {
        const e = text[++i];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('bad \\u escape');
          i += 4;
        } else if (!'"\\/bfnrt'.includes(e ?? '')) fail('bad escape');
      }
    }
    if (i >= text.length) fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const num = (): number => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m) fail('expected a value');
    i += (m as RegExpExecArray)[0].length;
    return Number((m as RegExpExecArray)[0]);
  };
  const lit = (word: string, v: unknown): unknown => {
    if (text.startsWith(word, i)) {
      i += word.length;
      return v;
    }
    return fail('expected a value');
  };
  const value = (depth: number): unknown => {
    if (depth > 200) fail('too deep');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const out: Record<string, unknown> = {};
      const keys = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return out;
      }
      for (;;) {
        ws();
        const k = str();
        if (keys.has(k)) fail(`duplicate key ${JSON.stringify(k)}`);
        keys.add(k);
        ws();
        if (text[i] !== ':') fail('expected ":"');
        i++;
        Object.defineProperty(out, k, { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return out;
        }
        fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const out: unknown[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return out;
      }
      for (;;) {
        out.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return out;
        }
        fail('expected "," or "]"');
      }
    }
    if (c === '"') return str();
    if (c === 't') return lit('true', true);
    if (c === 'f') return lit('false', false);
    if (c === 'n') return lit('null', null);
    return num();
  };
  const v = value(0);
  ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}
