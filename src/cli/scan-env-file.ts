/**
 * Reads a `.env` file line by line, as Node's loader does, to name the lines that loader drops without a
 * word: a line with no `=` (Node then glues it to the next line's name), a line with no name before `=`
 * (Node stops reading the file there). A value in quotes may span lines when the closing quote comes later.
 */
interface EnvFileLine {
  key: string;
  /** 1-based, as an editor shows it. */
  line: number;
}

export interface EnvFileScan {
  lines: EnvFileLine[];
  problems: string[];
}

const QUOTES = ['"', "'", '`'];

export function scanEnvFile(content: string): EnvFileScan {
  const text = content.split(/\r?\n/);
  const lines: EnvFileLine[] = [];
  const problems: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const trimmed = text[i]!.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const equal = trimmed.indexOf('=');
    if (equal < 0) {
      problems.push(`.env line ${i + 1}: no "=" (each line is NAME=value, or a # comment)`);
      continue;
    }
    const key = trimmed
      .slice(0, equal)
      .trim()
      .replace(/^export\s+/, '');
    if (key === '') problems.push(`.env line ${i + 1}: no name before "="`);
    else lines.push({ key, line: i + 1 });
    const value = trimmed.slice(equal + 1).trimStart();
    const quote = value[0];
    if (quote === undefined || !QUOTES.includes(quote) || value.indexOf(quote, 1) > 0) continue;
    const closing = text.findIndex((later, j) => j > i && later.includes(quote));
    if (closing > 0) i = closing;
  }
  return { lines, problems };
}
