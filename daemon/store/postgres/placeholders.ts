// The one translation the PostgreSQL adapter makes to the statements it is given: SQLite's
// parameters (`?` by position, `@name` by name) become PostgreSQL's `$1`, `$2`… String
// literals, quoted identifiers and comments are kept as they are.

export interface Translated {
  text: string;
  /** For `@name` parameters, the name of each `$n` in order; empty for `?` parameters. */
  names: string[];
}

const TOKEN = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\/|\?|@([A-Za-z_]\w*)/g;

export function translatePlaceholders(sql: string): Translated {
  const names: string[] = [];
  let count = 0;
  const text = sql.replace(TOKEN, (token, name: string | undefined) => {
    if (token === '?') {
      count += 1;
      return `$${count}`;
    }
    if (name === undefined) return token;
    let index = names.indexOf(name);
    if (index < 0) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  if (count > 0 && names.length > 0) {
    throw new TypeError(
      'A statement takes parameters by position (?) or by name (@name), not both.',
    );
  }
  return { text, names };
}
